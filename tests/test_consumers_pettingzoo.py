"""What a researcher's own tools do with the environments (docs/use-with.md): PettingZoo's
``render_test`` and its turn-based parallel conversion with ``parallel_api_test``; gymnasium vector
environments and process pools started with ``spawn`` (every factory crosses a pickle);
sb3-contrib's MaskablePPO on the gymnasium registry ids. The checkers ``api_test``/``seed_test``
run in test_env_api.py, test_fifteen_env.py and test_knock_env.py; gymnasium's and SB3's
``check_env`` in test_gym_envs.py."""

from __future__ import annotations

import functools
import multiprocessing
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, render_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import agents.train.gym_envs  # noqa: F401  (registers the gymnasium ids)
import continental_env
from continental_env import fifteen, knock

# The four PettingZoo environments: the contract game's two observation versions and the two
# side games, each small enough to finish quickly.
FACTORIES: dict[str, Callable[..., Any]] = {
    "continental_v0": functools.partial(continental_env.env, num_players=3, rounds=[1]),
    "continental_v1": functools.partial(continental_env.env, num_players=3, rounds=[1], version=1),
    "fifteen_v0": functools.partial(fifteen.env, num_players=3, hands=1),
    "knock_v0": functools.partial(knock.env, num_players=3, max_hands=2),
}
GYM_IDS = {
    "continental/Contract-v1": {"rounds": [1]},
    "continental/Fifteen-v0": {"hands": 1},
    "continental/Knock-v0": {"max_hands": 2},
}


@pytest.mark.parametrize("name", list(FACTORIES))
def test_render_test_passes(name: str) -> None:
    render_test(FACTORIES[name])
    env = FACTORIES[name](render_mode="ansi")
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == name  # the id the docs name
    assert env.render().strip()  # the ansi table is not empty


@pytest.mark.parametrize("name", list(FACTORIES))
def test_turn_based_parallel_conversion_passes_parallel_api_test(name: str) -> None:
    with warnings.catch_warnings():
        # parallel_api_test warns (once per run) that our observations are dicts, as api_test does
        warnings.simplefilter("ignore")
        parallel_api_test(turn_based_aec_to_parallel(FACTORIES[name]()), num_cycles=200)
    # a whole game through the parallel API: every agent sends an action each step, only the
    # agent to move has a legal one that matters (the others' masks are all zero)
    env = turn_based_aec_to_parallel(FACTORIES[name]())
    observations, _infos = env.reset(seed=4)
    steps = 0
    while env.agents:
        actions = {}
        for agent in env.agents:
            mask = observations[agent]["action_mask"]
            actions[agent] = int(np.flatnonzero(mask)[0]) if mask.any() else 0
        assert sum(observations[a]["action_mask"].any() for a in env.agents) == 1
        observations, _rewards, _terms, _truncs, _infos = env.step(actions)
        steps += 1
    assert steps > 10


def _play_one(factory: Callable[..., Any], seed: int) -> int:
    """A spawned worker: build the environment from its pickled factory, play one game with the
    first legal action, return the number of steps."""
    env = factory()
    env.reset(seed=seed)
    steps = 0
    for agent in env.agent_iter():
        obs, _reward, term, trunc, _info = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        steps += agent is not None
    return steps


def test_public_factories_pickle_into_a_spawned_process_pool_after_use() -> None:
    # each factory has been called in this process already (the failure this guards against
    # appeared only after the first call), then crosses a spawn pool's pickle
    local = {name: _play_one(factory, seed=1) for name, factory in FACTORIES.items()}
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        played = pool.starmap(_play_one, [(factory, 1) for factory in FACTORIES.values()])
    remote = dict(zip(FACTORIES, played, strict=True))
    assert remote == local  # the same seeded game in the worker as here


@pytest.mark.parametrize("env_id", list(GYM_IDS))
def test_gymnasium_async_vector_env_with_spawn(env_id: str) -> None:
    envs = gymnasium.make_vec(
        env_id,
        num_envs=2,
        vectorization_mode="async",
        vector_kwargs={"context": "spawn"},
        opponents=["greedy"],
        **GYM_IDS[env_id],
    )
    try:
        obs, _info = envs.reset(seed=0)
        assert obs.shape[0] == 2 and envs.single_observation_space.contains(obs[0])
        finished = np.zeros(2, dtype=int)
        for _ in range(5000):
            masks = envs.call("action_masks")
            actions = np.array([int(np.flatnonzero(m)[-1]) if m.any() else 0 for m in masks])
            obs, _reward, terminated, truncated, _info = envs.step(actions)
            finished += terminated | truncated
            if finished.min() >= 1:
                break
        assert finished.min() >= 1  # both copies played an episode to its end
    finally:
        envs.close()


@pytest.mark.parametrize("env_id", list(GYM_IDS))
def test_maskable_ppo_learns_on_the_registry_ids(env_id: str) -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib", reason="MaskablePPO is the [train] extra")
    from sb3_contrib.common.maskable.evaluation import evaluate_policy

    env = gymnasium.make(env_id, opponents=["random"], **GYM_IDS[env_id])
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=64,
        batch_size=32,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [32]},
    )
    model.learn(64)
    assert model.num_timesteps >= 64
    mean, _std = evaluate_policy(model, env, n_eval_episodes=1, use_masking=True, warn=False)
    assert np.isfinite(mean)
