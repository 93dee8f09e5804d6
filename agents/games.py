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


def __getattr__(name: str) -> Any:
    """``CONTRACT``: the contract game's spec, now ``agents.contract.GAME`` (read lazily)."""
    if name == "CONTRACT":
        return game_spec("contract")
    raise AttributeError(f"module 'agents.games' has no attribute {name!r}")


__all__ = ["DEFAULT_GAME", "GAMES", "GameSpec", "digest", "game_names", "game_spec"]
