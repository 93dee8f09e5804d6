"""The PettingZoo AEC environment: API conformance, seeding, spaces, masks, rewards, infos,
rendering, the registry and import hygiene (DESIGN.md "Observations", "Rewards")."""

from __future__ import annotations

import copy
import itertools
import pickle
import random
import subprocess
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from conftest import ROOT
from helpers import make_game
from pettingzoo.test import api_test, seed_test

import continental_env
from continental_env import PRESETS
from continental_env.contract.game import Game

# api_test warns about any environment missing from its own built-in name lists. Each of
# these is allowed by its exact message; every other warning is a failure.
ALLOWED_API_WARNINGS = (
    # Our observation is the classic-games dict {"observation", "action_mask"}; api_test only
    # exempts its own card/board games (env_obs_dicts) from this one.
    "Observation is not a NumPy array",
    # The observation space is a Dict for the same reason; exempted only for names listed in
    # its env_obs_space.
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
)


@contextmanager
def warnings_are_errors() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for message in ALLOWED_API_WARNINGS:
            warnings.filterwarnings("ignore", message=message.replace(".", r"\."))
        yield


def play_env(env: Any, seed: int, steps: int | None = None) -> Iterator[str]:
    """Step an env with random legal actions; yields each agent before it acts."""
    rng = random.Random(seed)
    for n, agent in enumerate(env.agent_iter()):
        if steps is not None and n >= steps:
            return
        obs, _reward, term, trunc, _info = env.last()
        yield agent
        if term or trunc:
            env.step(None)
        else:
            env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))


def load(env: Any, game: Game) -> None:
    """Put a hand-built engine position behind a reset environment."""
    env.unwrapped.game = game  # the setter drops the cache and follows the new game's actor


# ----------------------------------------------------------------------------- conformance


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("preset", ["continental", "continental_us", "continental_es"])
def test_pettingzoo_api_test_passes_with_warnings_as_errors(players: int, preset: str) -> None:
    with warnings_are_errors():
        api_test(continental_env.env(num_players=players, preset=preset), num_cycles=300)


@pytest.mark.parametrize("players", [2, 4])
def test_pettingzoo_seed_test_passes(players: int) -> None:
    with warnings_are_errors():
        seed_test(lambda: continental_env.env(num_players=players), num_cycles=200)


def test_registry_make_after_importing_the_env_module() -> None:
    import pettingzoo

    import continental_env.contract.aec  # noqa: F401  (registers continental/continental_v0)

    env = pettingzoo.make("aec", "continental/continental_v0")
    env.reset(seed=0)
    assert env.agents == ["player_0", "player_1", "player_2", "player_3"]


def test_env_pickles_and_reloads_with_its_arguments() -> None:
    env = continental_env.env(num_players=3, preset="continental_es", reward="points")
    env.reset(seed=5)
    clone = pickle.loads(pickle.dumps(env))
    clone.reset(seed=5)
    env.reset(seed=5)
    assert clone.unwrapped.rules == env.unwrapped.rules
    assert clone.unwrapped.reward_mode == "points"
    a, b = env.observe("player_1"), clone.observe("player_1")
    assert np.array_equal(a["observation"], b["observation"])


def random_steps(env: Any, seed: int, steps: int) -> list[tuple]:
    """Up to ``steps`` random legal actions (then ``None`` for the done agents); returns each
    step's agent, observation and reward."""
    rng = random.Random(seed)
    out = []
    for _ in range(steps):
        if not env.agents:
            break
        agent = env.agent_selection
        obs, reward, term, trunc, _info = env.last()
        out.append((agent, obs["observation"].tobytes(), reward))
        env.step(None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return out


def advanced_env(steps: int, **kwargs: Any) -> Any:
    """A wrapped env reset with seed 6 and moved on by ``steps`` random legal actions."""
    env = continental_env.env(**kwargs)
    env.reset(seed=6)
    random_steps(env, seed=6, steps=steps)
    return env


@pytest.mark.parametrize("copier", [copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))])
def test_pickle_and_deepcopy_keep_a_running_game(copier: Any) -> None:
    env = advanced_env(137, num_players=3, rounds=[1, 2])
    twin = copier(env)
    raw, traw = env.unwrapped, twin.unwrapped
    assert traw.game is not raw.game
    assert traw.game.to_dict() == raw.game.to_dict()
    assert traw.game.moves == 137
    for name in ("agents", "agent_selection", "rewards", "_cumulative_rewards", "terminations",
                 "truncations", "infos"):  # fmt: skip
        assert getattr(traw, name) == getattr(raw, name), name
    # Both continue identically, to the end of the game and into the next unseeded reset.
    assert random_steps(twin, seed=1, steps=10_000) == random_steps(env, seed=1, steps=10_000)
    assert all(traw.terminations.values()) and traw.game.is_over
    env.reset()
    twin.reset()
    assert traw.game.to_dict() == raw.game.to_dict()
    # A copy of an environment that was never reset is a fresh one, as before.
    fresh = copier(continental_env.env(num_players=3))
    assert fresh.unwrapped.game is None
    fresh.reset(seed=6)
    assert fresh.unwrapped.game.to_dict() == advanced_env(0, num_players=3).unwrapped.game.to_dict()


def test_assigning_a_game_serves_that_games_observations() -> None:
    env = continental_env.env(num_players=3)
    env.reset(seed=0)
    old = env.observe(env.agent_selection)["observation"].copy()  # fills the cache at move 0
    new_game = Game.new("continental", 3, seed=99)  # also at move 0
    env.unwrapped.game = new_game
    agent = env.possible_agents[new_game.actor]
    assert env.agent_selection == agent
    obs = env.observe(agent)
    hand = env.unwrapped.observation_layout["hand"]
    assert obs["observation"][hand][:53].tolist() == new_game.hands[new_game.actor]
    assert not np.array_equal(obs["observation"], old)
    assert np.flatnonzero(obs["action_mask"]).tolist() == new_game.legal_actions()
    with pytest.raises(ValueError, match="4 players"):
        env.unwrapped.game = Game.new("continental", 4, seed=1)


@pytest.mark.parametrize("action", [10**6, -1, 2.5, "draw", None])
def test_out_of_space_actions_get_the_engines_message_on_the_wrapped_env(action: Any) -> None:
    env = continental_env.env(num_players=4)
    env.reset(seed=0)
    before = env.unwrapped.game.to_dict()
    expected = "out of range 0..1630" if isinstance(action, int) else "not an integer id"
    with pytest.raises(ValueError, match=expected):
        env.step(action)
    assert env.unwrapped.game.to_dict() == before
    env.step(np.int64(env.unwrapped.game.legal_actions()[0]))  # numpy ids still work


def test_numpy_integer_seeds_are_accepted_and_other_seeds_refused() -> None:
    a, b = continental_env.env(num_players=2), continental_env.env(num_players=2)
    a.reset(seed=np.int64(11))
    b.reset(seed=11)
    assert a.unwrapped.game.to_dict() == b.unwrapped.game.to_dict()
    with pytest.raises(ValueError, match="not an integer"):
        a.reset(seed=1.5)


def test_game_pickles_to_an_equal_game() -> None:
    g = Game.new("continental_us", 4, seed=2)
    rng = random.Random(2)
    for _ in range(50):
        g.apply(rng.choice(g.legal_actions()))
    back = pickle.loads(pickle.dumps(g))
    assert back.to_dict() == g.to_dict()
    a = rng.choice(g.legal_actions())
    g.apply(a)
    back.apply(a)
    assert back.to_dict() == g.to_dict()


def test_spaces_are_the_same_object_on_every_call() -> None:
    env = continental_env.env(num_players=3)
    env.reset(seed=0)
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
        assert env.action_space(agent).n == env.unwrapped.game.num_actions


def test_observation_dtypes_and_only_the_acting_agent_has_a_mask() -> None:
    env = continental_env.env(num_players=4)
    env.reset(seed=1)
    for _agent in play_env(env, seed=1, steps=400):
        if not env.agents:
            break
        actor = env.agent_selection
        for agent in env.agents:
            obs = env.observe(agent)
            assert obs["observation"].dtype == np.float32
            assert obs["action_mask"].dtype == np.int8
            assert env.observation_space(agent).contains(obs)
            if agent == actor:
                legal = env.unwrapped.game.legal_actions()
                assert np.flatnonzero(obs["action_mask"]).tolist() == legal
            else:
                assert not obs["action_mask"].any()


def test_observation_layout_covers_the_vector_and_planes_reshape_to_5_by_13() -> None:
    raw = continental_env.raw_env(num_players=3)
    raw.reset(seed=0)
    layout = raw.observation_layout
    slices = sorted(layout.values(), key=lambda s: s.start)
    assert slices[0].start == 0 and slices[-1].stop == raw.obs_size
    assert all(a.stop == b.start for a, b in itertools.pairwise(slices))
    obs = raw.observe("player_0")["observation"]
    for name, part in raw.plane_slices.items():
        assert obs[part].reshape(-1, 5, 13).shape[0] >= 1, name


def test_observation_stays_in_its_space_with_negative_scores() -> None:
    # continental_us: seat 0 lays down and closes in one turn and scores -10 (one_turn_bonus).
    env = continental_env.env(num_players=2, preset="continental_us")
    env.reset(seed=0)
    load(env, make_game("continental_us", hands=["5C 5D 5H 6C 6D 6H 2C", "2D 5S 9D"]))
    env.step(env.unwrapped.game.action_from_str("laydown"))
    env.step(env.unwrapped.game.action_from_str("close"))
    assert env.unwrapped.game.scores == [-10, 16]
    for agent in env.agents:
        assert env.observation_space(agent).contains(env.observe(agent))


# ----------------------------------------------------------------------------- rewards


def round_end_env(reward: str, rounds: Any = None) -> Any:
    """An env where player_0 closes now (seat 1 holds 16 points, seat 2 holds 30)."""
    env = continental_env.env(num_players=3, reward=reward, rounds=rounds)
    env.reset(seed=0)
    game = make_game(
        env.unwrapped.rules,
        hands=["2C", "2D 5S 9D", "TC TD TH"],
        table=[(0, "trio", "5C 5D 5H"), (0, "trio", "6C 6D 6H")],
    )
    load(env, game)
    env.step(game.action_from_str("close"))
    return env


def test_relative_reward_is_zero_sum_per_round() -> None:
    env = round_end_env("relative")
    rewards = env.unwrapped.rewards
    assert rewards["player_0"] == pytest.approx(((16 + 30) / 2 - 0) / 100)
    assert rewards["player_1"] == pytest.approx(((0 + 30) / 2 - 16) / 100)
    assert rewards["player_2"] == pytest.approx(((0 + 16) / 2 - 30) / 100)
    assert sum(rewards.values()) == pytest.approx(0.0)


def test_points_reward_is_minus_own_points() -> None:
    env = round_end_env("points")
    assert env.unwrapped.rewards == pytest.approx(
        {"player_0": 0.0, "player_1": -0.16, "player_2": -0.30}
    )


def test_win_reward_only_at_the_game_end_shared_among_lowest_totals() -> None:
    mid = round_end_env("win")  # seven rounds: the first ends, no reward yet
    assert set(mid.unwrapped.rewards.values()) == {0.0}
    end = round_end_env("win", rounds=1)
    assert end.unwrapped.rewards == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}
    assert all(end.unwrapped.terminations.values())


def test_infos_carry_round_points_when_a_round_ends() -> None:
    env = round_end_env("relative")
    infos = env.unwrapped.infos
    assert [infos[a]["round_points"] for a in env.possible_agents] == [0, 16, 30]
    assert infos["player_1"]["round"] == 1 and infos["player_1"]["closer"] == 2  # relative seat


def test_rewards_over_a_whole_game_are_zero_sum_and_accumulate() -> None:
    env = continental_env.env(num_players=3, rounds=[1, 2])
    env.reset(seed=4)
    total = dict.fromkeys(env.possible_agents, 0.0)
    for _agent in play_env(env, seed=4):
        for a, r in env.unwrapped.rewards.items():
            total[a] += r
    assert sum(total.values()) == pytest.approx(0.0)
    game = env.unwrapped.game
    scores = game.scores
    for seat, agent in enumerate(env.possible_agents):
        others = (sum(scores) - scores[seat]) / 2
        assert total[agent] == pytest.approx((others - scores[seat]) / 100)


def test_illegal_action_raises_and_changes_nothing() -> None:
    env = continental_env.env(num_players=2)
    env.reset(seed=0)
    before = env.unwrapped.game.to_dict()
    with pytest.raises(ValueError, match="illegal action"):
        env.step(env.unwrapped.game.action_from_str("close"))
    assert env.unwrapped.game.to_dict() == before


@pytest.mark.parametrize(
    "kwargs",
    [{"num_players": 1}, {"num_players": 7, "preset": "continental_us"}, {"reward": "gold"},
     {"preset": "poker"}, {"render_mode": "rgb_array"}, {"rounds": [8]}],
)  # fmt: skip
def test_bad_arguments_are_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        continental_env.env(**kwargs)


# ----------------------------------------------------------------------------- render, imports


def test_render_ansi_returns_hands_melds_and_scores() -> None:
    env = continental_env.env(num_players=2, render_mode="ansi")
    env.reset(seed=0)
    game = make_game(
        hands=["2C 3C", "2D 9D 5S"],
        table=[(0, "trio", "5C 5D 5H"), (0, "trio", "6C 6D 6H")],
        scores=[12, 34],
    )
    load(env, game)
    text = env.render()
    assert isinstance(text, str)
    assert "2C 3C" in text and "2D 9D 5S" in text  # hands (shown sorted by suit, then rank)
    assert "5C 5D 5H" in text and "6C 6D 6H" in text  # melds
    assert "12" in text and "34" in text  # scores


def test_engine_import_pulls_in_no_rl_libraries() -> None:
    code = (
        "import sys\n"
        "import continental_env.contract.game\n"
        "bad = [m for m in ('gymnasium', 'pettingzoo', 'torch', 'stable_baselines3')"
        " if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_illegal_terminate_mode_ends_the_game_with_a_penalty() -> None:
    env = continental_env.env(num_players=2, illegal="terminate")
    env.reset(seed=0)
    agent = env.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the wrapper announces the illegal move with a warning
        env.step(env.unwrapped.game.action_from_str("close"))
    assert env.unwrapped.rewards[agent] == -1
    assert all(env.unwrapped.terminations.values())


def test_a_round_without_a_closer_says_minus_one_not_none() -> None:
    rules = replace(PRESETS["continental"], max_turns_per_round=3)
    env = continental_env.env(num_players=2, preset=rules, rounds=1)
    env.reset(seed=5)
    rng = random.Random(5)
    infos: dict = {}
    for agent in env.agent_iter():
        obs, _, termination, truncation, info = env.last()
        if termination or truncation:
            infos[agent] = info
            env.step(None)
            continue
        game = env.unwrapped.game
        legal = [int(a) for a in obs["action_mask"].nonzero()[0]]
        # never lay down or close, so only the turn limit can end the round
        legal = [a for a in legal if game.action_to_str(a) not in ("laydown", "close")] or legal
        env.step(rng.choice(legal))
    assert env.unwrapped.game.round_history[0]["closer"] is None  # the engine's record
    assert {info["closer"] for info in infos.values()} == {-1}
    assert not any(v is None for info in infos.values() for v in info.values())
