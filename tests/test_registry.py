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
    assert registry.versioned_name("search:8") == "search@v5:8"
    assert registry.versioned_name("ppo:strong.zip") == "ppo:strong.zip"
    assert make_agent("search@v4:8", 1).name == "search@v4:8"
    for bad in ("strong@v9", "search@v6", "strong@v1:3"):
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
    ``agents.contract``: each old path still gives the same objects, and warns once."""
    import importlib
    import warnings

    import agents
    import continental_env  # noqa: F401  (registers the old paths)
    from agents.contract.strong import StrongAgent
    from agents.play.knock import main as knock_main
    from continental_env.contract.game import Game
    from continental_env.engine import GameBase

    for old, name, new in (
        ("continental_env.game", "Game", Game),
        ("continental_env.kernel", "GameBase", GameBase),
        ("agents.bots.strong", "StrongAgent", StrongAgent),
        ("agents.knock.play", "main", knock_main),
    ):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert getattr(importlib.import_module(old), name) is new
        assert [w for w in caught if issubclass(w.category, DeprecationWarning)], old
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert agents.bots.base.PlayerView is agents.PlayerView
    assert any("agents.contract.view" in str(w.message) for w in caught)
    # The control: a new path warns nothing.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert importlib.import_module("continental_env.contract.game").Game is Game
    assert not caught
