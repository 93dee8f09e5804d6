"""The shared env layer (``continental_env.card_game_env``): factories that pickle whatever is
imported, ``state()`` / ``state_space`` on every game, and observations that still hide what
``state()`` shows."""

from __future__ import annotations

import functools
import multiprocessing
import pickle
import random
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from test_env_api import warnings_are_errors

import continental_env
from continental_env import fifteen, knock
from continental_env.card_game_env import CardGameEnv

ROOT = Path(__file__).resolve().parent.parent
FIFTEEN_SMALL = {"max_turns_per_hand": 30, "max_hands": 3}
KNOCK_SMALL = {"max_turns_per_hand": 30, "max_hands": 4}
# (package, factory keyword arguments) per game
GAMES: dict[str, tuple[Any, dict[str, Any]]] = {
    "contract": (continental_env, {}),
    "fifteen": (fifteen, FIFTEEN_SMALL),
    "knock": (knock, KNOCK_SMALL),
}
FACTORIES = [
    "continental_env.env",
    "continental_env.raw_env",
    "continental_env.fifteen.env",
    "continental_env.fifteen.raw_env",
    "continental_env.knock.env",
    "continental_env.knock.raw_env",
]


# ----------------------------------------------------------------------------- factories


def test_factories_stay_functions_and_pickle_after_every_module_is_imported() -> None:
    # A fresh interpreter: import every env module by its new and its old path (the old path
    # once rebound the package's factory to a module), use each factory, then pickle them all.
    code = (
        "import pickle, types\n"
        "import continental_env, continental_env.env, continental_env.contract.aec\n"
        "import continental_env.fifteen.env, continental_env.fifteen.aec\n"
        "import continental_env.knock.env, continental_env.knock.aec\n"
        "from continental_env.env import ContinentalEnv, raw_env, ObservationEncoder\n"
        "from continental_env.fifteen.env import FifteenEnv, observation_layout\n"
        "from continental_env.knock.env import KnockEnv, encode_observation\n"
        "from continental_env import fifteen, knock\n"
        "for make in (continental_env.env, fifteen.env, knock.env):\n"
        "    make(num_players=2).reset(seed=0)\n"
        f"for name in {FACTORIES!r}:\n"
        "    module, _, attr = name.rpartition('.')\n"
        "    factory = getattr(__import__(module, fromlist=[attr]), attr)\n"
        "    assert type(factory) is types.FunctionType, (name, factory)\n"
        "    assert pickle.loads(pickle.dumps(factory)) is factory, name\n"
        "assert continental_env.env.__module__ == 'continental_env'\n"
        "assert raw_env is ContinentalEnv\n"
        "print('ok')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def test_a_module_in_a_factorys_place_would_not_pickle() -> None:
    # Positive control for the test above: what ``continental_env.env`` used to become.
    import continental_env.contract.aec as module

    with pytest.raises(TypeError, match="pickle"):
        pickle.dumps(module)


def test_the_old_module_paths_are_views_of_the_new_modules() -> None:
    import continental_env.contract.aec
    import continental_env.env  # the old path: an alias in sys.modules

    old = sys.modules["continental_env.env"]
    assert isinstance(old, types.ModuleType) and old is not continental_env.contract.aec
    assert old.ContinentalEnv is continental_env.contract.aec.ContinentalEnv
    assert old.encode_observation is continental_env.contract.aec.encode_observation
    assert "ContinentalEnv" in dir(old)
    assert type(continental_env.env) is types.FunctionType
    with pytest.raises(AttributeError):
        old.no_such_name  # noqa: B018


def test_registry_ids_after_importing_the_old_module_path_in_a_fresh_interpreter() -> None:
    code = (
        "import pettingzoo, types\n"
        "import continental_env.fifteen.env, continental_env.knock.env, continental_env.env\n"
        "for env_id in ('continental/continental_v0', 'continental/continental_v1',\n"
        "               'continental/fifteen_v0', 'continental/knock_v0'):\n"
        "    env = pettingzoo.make('aec', env_id, num_players=2)\n"
        "    env.reset(seed=0)\n"
        "    assert env.unwrapped.metadata['name'] == env_id.split('/')[1], env_id\n"
        "assert type(continental_env.knock.env) is types.FunctionType\n"
        "print('ok')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def _play(factory: Any, steps: int = 30) -> tuple[str, int]:
    """Build an environment in this (spawned) process and play the first legal ids."""
    env = factory()
    env.reset(seed=3)
    for _ in range(steps):
        obs, _reward, term, trunc, _info = env.last()
        env.step(None if term or trunc else int(obs["action_mask"].nonzero()[0][0]))
    return env.unwrapped.metadata["name"], env.unwrapped.game.moves


def test_partial_factories_run_in_a_spawn_pool() -> None:
    factories = [
        functools.partial(continental_env.env, num_players=3, version=1),
        functools.partial(fifteen.env, num_players=2, **FIFTEEN_SMALL),
        functools.partial(knock.env, num_players=3, **KNOCK_SMALL),
    ]
    here = [_play(f) for f in factories]
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        there = pool.map(_play, factories)
    assert there == here == [("continental_v1", 30), ("fifteen_v0", 30), ("knock_v0", 30)]


def test_a_lambda_factory_does_not_survive_spawn() -> None:
    # Positive control: what spawn pools refuse (pickle by reference needs a module-level name).
    with pytest.raises((pickle.PicklingError, AttributeError)):
        pickle.dumps(lambda: continental_env.env(num_players=2))


def test_single_agent_wrappers_in_a_spawn_async_vector_env() -> None:
    from agents.train import gym_envs

    makers = [
        functools.partial(gym_envs.make_contract, opponents=["random"], illegal="terminate"),
        functools.partial(gym_envs.make_knock, opponents=["random"], **KNOCK_SMALL),
    ]
    for make in makers:
        vec = gymnasium.vector.AsyncVectorEnv([make, make], context="spawn")
        try:
            obs, _info = vec.reset(seed=[1, 2])
            masks = vec.call("action_masks")
            actions = np.array([int(np.flatnonzero(m)[0]) for m in masks])
            obs2, rewards, _term, _trunc, _info = vec.step(actions)
        finally:
            vec.close()
        single = make()
        assert obs.shape == (2, *single.observation_space.shape)
        assert obs2.shape == obs.shape and rewards.shape == (2,)
        first, _ = single.reset(seed=1)
        assert np.array_equal(obs[0], first)  # the same seed, the same table in the worker


# ----------------------------------------------------------------------------- PettingZoo tests


@pytest.mark.parametrize("game", list(GAMES))
def test_pettingzoo_tests_pass_on_the_base(game: str) -> None:
    package, options = GAMES[game]
    with warnings_are_errors():
        api_test(package.env(num_players=3, **options), num_cycles=200)
        seed_test(lambda: package.env(num_players=2, **options), num_cycles=100)
        render_test(lambda render_mode: package.env(render_mode=render_mode, **options))
    assert isinstance(package.env(num_players=2, **options).unwrapped, CardGameEnv)


# ----------------------------------------------------------------------------- state()


def positions(game: str, players: int, seed: int, every: int = 23) -> list[Any]:
    """Engine positions met in random play from a fresh ``reset``, the last one finished."""
    package, options = GAMES[game]
    raw = package.raw_env(num_players=players, **options)
    raw.reset(seed=seed)
    g = raw.game
    rng = random.Random(seed)
    out = []
    step = 0
    while not g.is_over and step < 3000:
        if step % every == 0:
            out.append(g.clone())
        g.apply(rng.choice(g.legal_actions()))
        step += 1
    out.append(g.clone())
    return out


def raw_at(game: str, position: Any) -> Any:
    package, options = GAMES[game]
    raw = package.raw_env(num_players=position.num_players, **options)
    raw.reset(seed=0)
    raw.game = position
    return raw


@pytest.mark.parametrize(("game", "players"), [("contract", 2), ("contract", 5), ("fifteen", 3),
                                               ("fifteen", 9), ("knock", 2), ("knock", 6)])  # fmt: skip
def test_state_is_a_float32_vector_of_its_space_with_every_card(game: str, players: int) -> None:
    for position in positions(game, players, seed=players):
        raw = raw_at(game, position)
        state = raw.state()
        assert state.dtype == np.float32 and state.shape == raw.state_space.shape
        assert raw.state_space.contains(state)
        layout = raw.state_layout
        assert max(sl.stop for sl in layout.values()) == state.shape[0]
        hands = state[layout["hands"]].reshape(players, 65)
        for seat in range(players):
            assert hands[seat, :53].tolist() == list(position.hands[seat])
        # Every card of the game is in a hand, the stock, the discard pile (or a table meld).
        cards = hands.sum() + state[layout["stock"]].sum() + state[layout["discard_pile"]].sum()
        if "table" in layout:
            cards += state[layout["table"]].sum()
        total = sum(sum(h) for h in position.hands) + len(position.stock)
        total += len(position.discard) + sum(len(m.cards) for m in getattr(position, "table", []))
        assert cards == total
        actor = state[layout["actor"]]
        assert actor.sum() == (0 if position.is_over else 1)
        assert raw.state() is not state and np.array_equal(raw.state(), state)  # a new array


def swap_one_hidden_card(data: dict[str, Any], seat: int) -> dict[str, Any] | None:
    """A copy where one card of ``seat``'s hand nobody saw it take trades with a stock card of
    another type; None when there is none."""
    known = list(data["known"][seat])
    hidden = []
    for card in data["hands"][seat]:
        if card in known:
            known.remove(card)
        else:
            hidden.append(card)
    stock = data["stock"]
    for card in hidden:
        for i, other in enumerate(stock):
            if other != card:
                out = pickle.loads(pickle.dumps(data))
                hand = out["hands"][seat]
                hand[hand.index(card)] = other
                out["stock"][i] = card
                return out
    return None


@pytest.mark.parametrize("game", list(GAMES))
def test_state_shows_a_hidden_hand_that_observations_hide(game: str) -> None:
    engine = type(positions(game, 3, seed=0)[0])
    checked = 0
    for position in positions(game, 3, seed=1)[:-1]:
        data = position.to_dict()
        variant_data = swap_one_hidden_card(data, seat=1)
        if variant_data is None:
            continue
        variant = engine.from_dict(variant_data)
        raw, other = raw_at(game, position), raw_at(game, variant)
        # Positive control: the full state sees seat 1's hand (and the stock) change ...
        assert not np.array_equal(raw.state(), other.state())
        # ... and so does seat 1's own observation ...
        assert not np.array_equal(
            raw.observe("player_1")["observation"], other.observe("player_1")["observation"]
        )
        # ... while the opponents' observations and masks stay exactly the same.
        for agent in ("player_0", "player_2"):
            a, b = raw.observe(agent), other.observe(agent)
            assert np.array_equal(a["observation"], b["observation"])
            assert np.array_equal(a["action_mask"], b["action_mask"])
        checked += 1
    assert checked >= 3


def test_state_through_the_wrappers_and_before_reset() -> None:
    env = knock.env(num_players=3, **KNOCK_SMALL)
    env.reset(seed=5)
    assert np.array_equal(env.state(), env.unwrapped.state())
    assert env.state_space is env.unwrapped.state_space
    with pytest.raises(RuntimeError, match="reset"):
        knock.raw_env(num_players=3).state()
