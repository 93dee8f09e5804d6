"""The single-agent environments of the three games in gymnasium's registry: the checkers of
gymnasium and SB3, masks, illegal actions (raise / terminate), rewards, seeding and pickling; and
AEC infos without None."""

from __future__ import annotations

import functools
import os
import pickle
import subprocess
import sys
import warnings
from pathlib import Path
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

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
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


def test_sb3_make_vec_env_takes_every_id_after_import_continental_env() -> None:
    """The ids exist once ``continental_env`` is imported (gymnasium itself is not imported for
    it), and SB3's ``make_vec_env``, which offers ``render_mode="rgb_array"`` first, makes them."""
    script = """
import sys
import continental_env
assert "gymnasium" not in sys.modules, "continental_env imported gymnasium"
import numpy as np
from stable_baselines3.common.env_util import make_vec_env
for env_id, kwargs in SMALL.items():
    venv = make_vec_env(env_id, n_envs=2, seed=0, env_kwargs=kwargs)
    venv.reset()
    masks = np.stack(venv.env_method("action_masks"))
    assert masks.any(axis=1).all()
    obs, rewards, dones, infos = venv.step(masks.argmax(axis=1))  # a legal action in each
    assert obs.shape[0] == 2 and len(rewards) == 2
    venv.close()
    print("ok", env_id)
"""
    result = subprocess.run(
        [sys.executable, "-c", f"SMALL = {SMALL!r}\n{script}"],
        cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.count("ok continental/") == 3


def test_a_render_mode_the_env_lacks_is_a_value_and_a_type_error() -> None:
    """ValueError for bad input; a TypeError too, as SB3's ``make_vec_env`` expects of an env
    that does not take its default ``render_mode="rgb_array"``."""
    for env_id in SMALL:
        with pytest.raises(ValueError, match="render_mode='rgb_array': choose 'ansi' or None"):
            gymnasium.make(env_id, render_mode="rgb_array", **SMALL[env_id])
        with pytest.raises(TypeError, match="render_mode='rgb_array'"):
            gymnasium.make(env_id, render_mode="rgb_array", **SMALL[env_id])


def test_a_probe_for_gymnasium_before_its_import_does_not_lose_the_ids() -> None:
    """TorchRL asks ``importlib.util.find_spec("gymnasium")`` before anything imports it: the
    ids must still be registered at the import that follows, and the wrapped loader copies."""
    import subprocess
    import sys

    code = (
        "import copy, importlib.util, continental_env\n"
        "importlib.util.find_spec('gymnasium')\n"
        "import gymnasium\n"
        "assert 'continental/Knock-v0' in gymnasium.registry\n"
        "copy.copy(gymnasium.__spec__.loader)\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
