"""The games the harness, training, the terminal table and the browser table know, one
``GameSpec`` (``agents.spec``) each.

**Registering a game** is one entry in ``GAMES``: its name mapped to ``"module:ATTRIBUTE"``, a
``GameSpec`` imported only when the game is asked for. For example the knock game is
``"knock": "agents.knock:GAME"``, with ``agents/knock`` defining ``GAME = GameSpec(...)``; its
bots are its entries in ``agents.registry``. ``continental evaluate --game knock`` and
``continental play --game knock`` (through the spec's ``terminal`` module) then take it with no
further change; the browser table adds the page's words (a table module in
``continental_web.games.TABLES``).

| game | scores | better | options (``--set key=value``) |
|---|---|---|---|
| ``contract`` | points, per round | lower | ``preset``, ``rounds`` |
| ``fifteen`` | chips, per hand (zero-sum) | higher | ``target``, ``hands``, ``max_turns_per_hand``, ``max_hands`` |
| ``knock`` | net chips (ante, bonuses, buy-backs, the pot), per hand | higher | ``stake``, ``max_turns_per_hand``, ``max_hands`` |
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

from agents.spec import GameSpec, digest

DEFAULT_GAME = "contract"
# name -> "module:ATTRIBUTE" of its GameSpec, imported on first use.
GAMES: dict[str, str] = {
    "contract": "agents.contract:GAME",
    "fifteen": "agents.fifteen:GAME",
    "knock": "agents.knock:GAME",
}


def game_names() -> tuple[str, ...]:
    """The registered games."""
    return tuple(GAMES)


def game_spec(name: str) -> GameSpec:
    """The spec of a registered game; ValueError naming the choices otherwise."""
    target = GAMES.get(name)
    if target is None:
        raise ValueError(f"unknown game {name!r}; choose one of {', '.join(GAMES)}")
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    """``--game``, ``--set KEY=VALUE`` and ``--preset``: which game, and its options
    (``game_arguments`` checks them)."""
    parser.add_argument(
        "--game", default=DEFAULT_GAME, choices=game_names(), help="which game (agents.games)"
    )
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE",
        help="a game option, e.g. --set target=100 (fifteen); repeatable",
    )  # fmt: skip
    parser.add_argument("--preset", default=None, help="contract game: the preset (continental)")


def game_arguments(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """The game and its options (``--set``) of ``add_game_arguments``' arguments; ValueError
    naming an option the game does not take, or a contract-game flag given for another game."""
    # --preset and --rounds choose rules: only a game whose options are rules takes them.
    if game_spec(args.game).rules_options is None and (
        args.preset or getattr(args, "rounds", None)
    ):
        flags = "--preset and --rounds" if hasattr(args, "rounds") else "--preset"
        raise ValueError(f"{flags} belong to the contract game, not {args.game}")
    return args.game, game_spec(args.game).parse_options(args.set)


def __getattr__(name: str) -> Any:
    """``CONTRACT``: the contract game's spec, now ``agents.contract.GAME`` (read lazily)."""
    if name == "CONTRACT":
        return game_spec("contract")
    raise AttributeError(f"module 'agents.games' has no attribute {name!r}")


__all__ = [
    "DEFAULT_GAME",
    "GAMES",
    "GameSpec",
    "add_game_arguments",
    "digest",
    "game_arguments",
    "game_names",
    "game_spec",
]
