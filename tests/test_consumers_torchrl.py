"""TorchRL's ``PettingZooWrapper`` on the three games (``pytest -m torchrl``; the
``[consumers]`` extra, skipped where torchrl is absent): a whole game through one wrapped
environment, and batched copies (``SerialEnv``), where the masks must come from the policy
(docs/use-with.md "TorchRL")."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("torchrl", reason="TorchRL is the [consumers] extra")

import torch
from tensordict import TensorDictBase
from torchrl.envs import SerialEnv
from torchrl.envs.libs.pettingzoo import PettingZooWrapper

import continental_env
from continental_env import fifteen, knock

pytestmark = pytest.mark.torchrl

FACTORIES: dict[str, Callable[[], Any]] = {
    "contract": functools.partial(continental_env.env, num_players=2, rounds=[1], version=1),
    "fifteen": functools.partial(fifteen.env, num_players=2, hands=1),
    "knock": functools.partial(knock.env, num_players=2, max_hands=1),
}


def wrapped(game: str) -> PettingZooWrapper:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "tested using version == 1.24.3": we run 1.27
        return PettingZooWrapper(env=FACTORIES[game](), use_mask=True, categorical_actions=True)


class FirstLegal:
    """A policy that reads each group's ``action_mask`` from the tensordict (what a batched
    environment needs: its action spec carries no per-copy mask)."""

    def __init__(self, groups: list[str]) -> None:
        self.groups = groups

    def __call__(self, td: TensorDictBase) -> TensorDictBase:
        for group in self.groups:
            mask = td[group, "action_mask"]
            td[group, "action"] = mask.int().argmax(dim=-1)  # the lowest legal id; 0 where none
        return td


@pytest.mark.parametrize("game", list(FACTORIES))
def test_one_wrapped_env_plays_a_whole_game_with_its_masked_random_actions(game: str) -> None:
    env = wrapped(game)
    env.set_seed(0)
    td = env.rollout(20_000, break_when_any_done=True)  # random actions drawn from the masked spec
    assert td["next", "done"][-1].all()
    assert not td["next", "done"][:-1].any()
    groups = list(env.group_map)
    acting = torch.stack([td[g, "mask"].any(-1) for g in groups], dim=-1)
    assert (acting.sum(-1) == 1).all()  # one agent acts per step: the AEC turn order


@pytest.mark.parametrize("game", list(FACTORIES))
def test_batched_copies_play_with_a_policy_that_reads_the_masks(game: str) -> None:
    batched = SerialEnv(2, functools.partial(wrapped, game))
    batched.set_seed(0)
    groups = list(wrapped(game).group_map)
    # 300 steps of each copy (a copy whose game ends resets on its own)
    td = batched.rollout(300, policy=FirstLegal(groups), break_when_any_done=False)
    assert td.batch_size == (2, 300)
    for group in groups:
        legal = td[group, "action_mask"].gather(-1, td[group, "action"].unsqueeze(-1))
        acting = td[group, "mask"]
        assert legal.squeeze(-1)[acting].all()  # every acting agent's action was legal


def test_batched_copies_with_the_specs_random_action_send_illegal_ones() -> None:
    # The caveat docs/use-with.md states: a batched environment's rand_action ignores the
    # copies' masks, so a policy must read them (the test above).
    batched = SerialEnv(2, functools.partial(wrapped, "knock"))
    batched.set_seed(0)
    with pytest.raises(ValueError, match="illegal action"):
        batched.rollout(200)
