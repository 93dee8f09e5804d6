"""The one bot registry: every door into it builds the same bots, and every front end offers the
names it lists."""

from __future__ import annotations

import pytest

from agents import AGENT_NAMES, make_agent, registry
from agents.games import game_names, game_spec


def test_every_door_builds_the_same_bot_for_a_name() -> None:
    import agents.fifteen
    import agents.knock

    doors = {
        "fifteen": agents.fifteen.make_agent,
        "knock": agents.knock.make_agent,
        "contract": lambda name, seed: make_agent(name, seed),
    }
    for game, door in doors.items():
        for name in registry.offered(game):
            seed = 7
            a, b, c = (
                door(name, seed),
                game_spec(game).make_agent(name, seed),
                make_agent(name, seed, game=game),
            )
            assert type(a) is type(b) is type(c), (game, name)
            assert a.name == b.name == c.name == name


def test_frozen_and_current_names_keep_their_versions() -> None:
    assert make_agent("strong@v1", 1).name == "strong@v1"
    assert make_agent("strong@v2", 1).name == "strong@v2"
    assert make_agent("strong", 1).name == "strong"
    assert type(make_agent("strong", 1)) is type(make_agent(registry.CURRENT["strong"], 1))
    assert make_agent("search:2", 1).name == "search:2"
    assert make_agent("search@v1:2", 1).name == "search@v1:2"
    assert registry.versioned_name("search:8") == "search@v6:8"
    assert registry.versioned_name("ppo:strong.zip") == "ppo:strong.zip"
    assert make_agent("search@v4:8", 1).name == "search@v4:8"
    assert make_agent("search@v6:8", 1).name == "search@v6:8"
    for bad in ("strong@v9", "search@v7", "strong@v1:3"):
        with pytest.raises(ValueError, match="unknown agent version"):
            make_agent(bad, 1)


def test_oracles_are_named_as_such_and_unknown_names_list_the_choices() -> None:
    oracle = make_agent("search-oracle:2", 1)
    assert registry.is_oracle(oracle.name) and not registry.is_oracle("search:2")
    with pytest.raises(
        ValueError, match=r"unknown agent 'strongest' for the contract game.*greedy"
    ):
        make_agent("strongest", 1)
    with pytest.raises(ValueError, match="unknown agent 'search' for the knock game"):
        make_agent("search", 1, game="knock")
    with pytest.raises(ValueError, match="unknown game 'poker'"):
        make_agent("greedy", 1, game="poker")


def test_the_offered_names_are_the_specs_the_web_tables_and_agents_lists() -> None:
    from continental_web import session

    assert set(game_names()) == set(registry.BOTS) == set(registry.OFFERED)
    for game in game_names():
        assert game_spec(game).agent_names == registry.offered(game)
    assert AGENT_NAMES == registry.offered("contract") == session.BOT_NAMES
    for game in ("fifteen", "knock"):
        assert session.game_bots(game) == list(registry.offered(game))


def test_old_module_paths_import_for_one_release_with_a_deprecation_warning() -> None:
    """The contract game's modules moved into ``continental_env.contract`` and
    ``agents.contract``: each old path imports as the module itself (the same objects, patches
    reach it), and importing it warns; a new path warns nothing (the control)."""
    import importlib
    import sys
    import warnings
    from unittest import mock

    import agents
    import continental_env
    from agents.contract import strong
    from agents.play.knock import main as knock_main
    from continental_env.contract.game import Game
    from continental_env.engine import GameBase

    for old, name, new in (
        ("continental_env.game", "Game", Game),
        ("continental_env.kernel", "GameBase", GameBase),
        ("agents.bots.strong", "StrongAgent", strong.StrongAgent),
        ("agents.knock.play", "main", knock_main),
    ):
        sys.modules.pop(old, None)  # imported by an earlier test: import it afresh
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module = importlib.import_module(old)
        assert getattr(module, name) is new
        assert [w for w in caught if issubclass(w.category, DeprecationWarning)], old
    # ``import old`` binds it on its package, and a patch of the old path reaches the module.
    assert continental_env.game.Game is Game
    with mock.patch("agents.bots.strong.CLAIM_MAX_MISSING", 99):
        assert strong.CLAIM_MAX_MISSING == 99
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert agents.bots.base.PlayerView is agents.PlayerView
    assert any("agents.contract.view" in str(w.message) for w in caught)
    # The control: a new path warns nothing.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert importlib.import_module("continental_env.contract.game").Game is Game
    assert not caught


def test_an_old_class_path_in_a_pickle_loads_as_the_new_class() -> None:
    import pickle
    import sys

    from continental_env.contract.game import Game

    game = Game.new("continental", 2, seed=1)
    data = pickle.dumps(game, protocol=0)
    assert b"continental_env.contract.game" in data
    sys.modules.pop("continental_env.game", None)
    old = data.replace(b"continental_env.contract.game", b"continental_env.game")
    with pytest.warns(DeprecationWarning, match="continental_env.game is deprecated"):
        loaded = pickle.loads(old)
    assert type(loaded) is Game and loaded.to_dict() == game.to_dict()


def test_an_old_module_path_still_runs_with_python_m() -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "agents.knock.play", "--help"],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "--stake" in out.stdout


def test_the_side_games_old_learner_module_builds_their_learner_seat() -> None:
    """``continental_env.side_single_agent.make_env`` built the side games' learner seat: the
    old path keeps that meaning (``single_agent.make_env`` is the contract game's)."""
    import warnings

    from continental_env.single_agent import SingleAgentSideGame

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from continental_env import side_single_agent

        assert side_single_agent.make_env is SingleAgentSideGame
