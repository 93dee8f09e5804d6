"""Tianshou 2.0 on the three games (``pytest -m tianshou``; the ``[consumers]`` extra, skipped
where tianshou is absent): its ``PettingZooEnv`` wrapper, masked random agents, a vectorised
``Collector`` and a replay buffer that stores every step's infos (docs/use-with.md "Tianshou").
The buffer types each info column from its first value, so an info that is sometimes ``None``
(the knock game's ``announcer``) breaks it: the last test is that failure, as a control."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

pytest.importorskip("tianshou", reason="Tianshou is the [consumers] extra")

from pettingzoo.utils import BaseWrapper
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv

import continental_env
from continental_env import fifteen, knock

pytestmark = pytest.mark.tianshou

FACTORIES: dict[str, Callable[[], Any]] = {
    "contract": functools.partial(continental_env.env, num_players=2, rounds=[1], version=1),
    "fifteen": functools.partial(fifteen.env, num_players=3, hands=1),
    "knock": functools.partial(knock.env, num_players=3, max_hands=2),
}
INFO_KEYS = {"contract": "closer", "fifteen": "winner", "knock": "announcer"}


def collect(make: Callable[[], Any], episodes: int = 2) -> VectorReplayBuffer:
    """Random masked play of ``episodes`` games on two vectorised copies, into a buffer."""
    env = PettingZooEnv(make())
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[
            MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in env.agents
        ],
        env=env,
    )
    envs = DummyVectorEnv([lambda: PettingZooEnv(make()) for _ in range(2)])
    envs.seed(0)
    np.random.seed(0)  # the random agents draw from numpy's global generator
    buffer = VectorReplayBuffer(20_000, 2)
    stats = Collector(algorithm.policy, envs, buffer).collect(
        n_episode=episodes, reset_before_collect=True
    )
    assert stats.n_collected_episodes == episodes
    return buffer


@pytest.mark.parametrize("game", list(FACTORIES))
def test_collector_fills_a_replay_buffer_with_every_steps_infos(game: str) -> None:
    buffer = collect(FACTORIES[game])
    stored = buffer.sample_indices(0)  # every stored step, across the two copies' sub-buffers
    assert len(stored) > 20
    column = np.asarray(buffer.info[INFO_KEYS[game]][stored])
    assert column.dtype.kind == "i"  # an integer column: -1, never None, where nobody
    masks = buffer.obs.mask[stored]
    assert masks[np.arange(len(stored)), buffer.act[stored]].all()  # every action was legal


class NoneAnnouncer(BaseWrapper):
    """The knock game as it was: ``announcer`` None while nobody has announced."""

    def last(self, observe: bool = True) -> Any:
        obs, reward, term, trunc, info = super().last(observe)
        if info.get("announcer") == -1:
            info = {**info, "announcer": None}
        return obs, reward, term, trunc, info


def test_control_an_info_that_is_sometimes_none_breaks_the_buffer() -> None:
    with pytest.raises(Exception):  # noqa: B017  (tianshou's own error type varies by column)
        collect(lambda: NoneAnnouncer(FACTORIES["knock"]()))
