"""The single-agent environments of the three games in gymnasium's registry: the checkers of
gymnasium and SB3, masks, illegal actions (raise / terminate), rewards, seeding and pickling; and
AEC infos without None."""

from __future__ import annotations

import functools
import pickle
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import agents.train.gym_envs  # noqa: F401  (registers the ids)
from agents.train.side_single_agent import make_env as make_side_env
from continental_env import fifteen, knock
from continental_env.single_agent import SingleAgentSideGame

SMALL = {
    "continental/Contract-v1": {"rounds": [1]},
    "continental/Fifteen-v0": {"hands": 1},
    "continental/Knock-v0": {"max_hands": 3},
}


def no_none(value: Any) -> bool:
    if value is None:
        return False
    if isinstance(value, dict):
        return all(no_none(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(no_none(v) for v in value)
    return True


def play_out(env: Any, seed: int) -> tuple[float, dict[str, Any], int]:
    """First legal action each turn until the episode ends: (return, last info, steps)."""
    _obs, info = env.reset(seed=seed)
    assert no_none(info)
    total, steps = 0.0, 0
    while True:
        mask = env.unwrapped.action_masks()
        assert mask.dtype == bool and mask.any()
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[-1]))
        assert env.observation_space.contains(obs) and no_none(info)
        total += reward
        steps += 1
        if terminated or truncated:
            return total, info, steps


@pytest.mark.parametrize("env_id", list(SMALL))
def test_gymnasium_and_sb3_checkers_pass_with_illegal_terminate(env_id: str) -> None:
    env = gymnasium.make(env_id, opponents=["greedy"], illegal="terminate", **SMALL[env_id])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped, skip_render_check=True)
        sb3_check_env(env.unwrapped, warn=False)
    total, info, steps = play_out(env, seed=3)
    assert steps >= 1 and np.isfinite(total) and "score" in info


@pytest.mark.parametrize("env_id", list(SMALL))
def test_an_illegal_action_raises_or_terminates(env_id: str) -> None:
    env = gymnasium.make(env_id, opponents=["random"], **SMALL[env_id]).unwrapped
    obs, _info = env.reset(seed=5)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(ValueError):
        env.step(illegal)
    assert np.array_equal(env._observe(), obs)  # nothing changed
    env = gymnasium.make(env_id, opponents=["random"], illegal="terminate", **SMALL[env_id])
    env.reset(seed=5)
    _obs, reward, terminated, _trunc, info = env.step(illegal)
    assert terminated and reward == -1.0 and info["illegal_action"] is True
    with pytest.raises(ValueError, match="illegal='ignore'"):
        gymnasium.make(env_id, opponents=["random"], illegal="ignore")


@pytest.mark.parametrize("game", ["fifteen", "knock"])
def test_side_env_rewards_sum_to_the_learners_chips_and_seeds_replay(game: str) -> None:
    options = {"hands": 2} if game == "fifteen" else {"max_hands": 4}
    scale = 10.0 if game == "fifteen" else 50.0  # the AEC env's chips rewards
    env = make_side_env(game=game, opponents=["greedy", "strong"], **options)
    total, info, _steps = play_out(env, seed=8)
    assert total * scale == pytest.approx(info["score"])
    again = make_side_env(game=game, opponents=["greedy", "strong"], **options)
    assert play_out(again, seed=8) == (total, info, _steps)


def test_side_env_refuses_bad_arguments_by_name() -> None:
    with pytest.raises(ValueError, match="game='poker'"):
        SingleAgentSideGame(game="poker", opponents=[lambda g, s: 0])
    with pytest.raises(ValueError, match="unknown agent 'nobody' for the knock game"):
        make_side_env(game="knock", opponents=["nobody"])
    with pytest.raises(ValueError, match="is a name"):
        SingleAgentSideGame(game="knock", opponents=["greedy"])
    with pytest.raises(ValueError, match="stake"):
        make_side_env(game="knock", opponents=["greedy"], stake=7)


def test_side_env_factories_pickle_and_an_eliminated_learner_ends_its_episode() -> None:
    factory = functools.partial(make_side_env, game="knock", opponents=["greedy"])
    env = pickle.loads(pickle.dumps(factory))()
    env.reset(seed=1)
    ended = 0
    for seed in range(6):
        play_out(env, seed)
        game = env.game
        assert game.is_over or not game.in_game[env.learner]
        ended += not game.is_over
    assert ended >= 1  # the random-first-action learner is knocked out before the game ends


@pytest.mark.parametrize("module", [fifteen, knock])
def test_aec_infos_never_hold_none(module: Any) -> None:
    key = "winner" if module is fifteen else "announcer"
    env = module.env(num_players=3, max_turns_per_hand=6, max_hands=4)
    env.reset(seed=2)
    seen = []
    for agent in env.agent_iter(max_iter=5000):
        _obs, _reward, term, trunc, info = env.last()
        assert no_none(info)
        if key in info:
            seen.append(info[key])
        if term or trunc:
            env.step(None)
            continue
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    assert -1 in seen  # the turn limit ended a hand with nobody announcing or going out
