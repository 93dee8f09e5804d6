"""Agents for Continental: one ``act(view) -> action id`` protocol for every bot.

``make_agent(name, seed)`` builds a bot by name:

| name | bot |
|---|---|
| ``random`` | uniform over the legal actions (``agents.bots.random_agent``) |
| ``greedy`` | the simplest sound play (``agents.bots.greedy``) |
| ``strong`` | the best heuristic bot (today ``strong@v1``; see ``CURRENT``) |
| ``strong@v1`` | plays to win: card values from the cards seen, claims weighed (``agents.bots.strong``), frozen |
| ``strong@v2`` | v1 with a whole-table feed model, the feed sign fixed once down, danger-aware dumping, inference from discards and declines, tunable timing (``agents.bots.strong_v2``), frozen |
| ``strong-v2:K=V[:K=V...]`` | experimental, not frozen: ``strong@v2`` with constants overridden (``:v1`` first starts from v1's constants), for ablations and tuning |
| ``search``, ``search:N`` | the best search bot (today ``search@v1``, ``search@v1:N``) |
| ``search@v1``, ``search@v1:N`` | determinized search: N sampled worlds per decision, ``strong@v1`` rollouts (``agents.bots.search``), frozen |
| ``search-oracle``, ``search-oracle:N`` | diagnostic only: ``search@v1`` rolling out the *real* hidden hands (stock reshuffled); reads hidden state, refused by the evaluation harness unless allowed (``agents.bots.search_oracle``) |
| ``ppo:PATH`` | a trained policy (``continental_v0`` or ``_v1``), loaded by ``agents.bots.ppo_agent.load_agent(PATH, seed)`` |
| ``bc:PATH`` | the same for a ``continental_v1`` model only (``agents.train.imitation.load_feature_agent``) |
| ``rllib:PATH`` | a policy trained with Ray RLlib, ``agents.bots.rllib_agent.load_agent(PATH, seed)`` |

**Versions.** ``name@vK`` is a frozen bot: the same seeds give the same decisions forever
(``tests/test_versions.py`` pins them on recorded games). The bare names ``strong`` and ``search``
(and ``search:N``) name the current best version (``CURRENT``) and may move to a later one;
``versioned_name`` says which version a name plays, and reports print it. Names containing
``oracle`` read the true hidden state: diagnostics, never ordinary players (``is_oracle``).

The other games have their own bots: ``make_agent(name, seed, game="fifteen")`` asks that game's
``GameSpec`` (``agents.games``, where a game registers with one entry).
"""

from __future__ import annotations

import importlib
from typing import Any

from agents.bots.base import Agent, PlayerView, view_for

AGENT_NAMES = ("random", "greedy", "strong", "search")
DEFAULT_GAME = "contract"
# The version each bare name plays. A frozen version never changes; only this table moves.
CURRENT = {"strong": "strong@v1", "search": "search@v1"}
VERSIONS = {"strong": ("strong@v1", "strong@v2"), "search": ("search@v1",)}


def is_oracle(name: str) -> bool:
    """Whether the agent ``name`` reads the true hidden state (a diagnostic, not a player)."""
    return "oracle" in name.lower()


def versioned_name(name: str) -> str:
    """The frozen version a registry name plays: ``strong`` -> ``strong@v1``, ``search:8`` ->
    ``search@v1:8``; names without versions (``greedy``, ``ppo:PATH``) are returned as given."""
    base, sep, rest = name.partition(":")
    if base in CURRENT and not name.startswith(("ppo:", "bc:", "rllib:")):
        return CURRENT[base] + sep + rest
    return name


def _versioned(name: str, seed: int | None) -> Any:
    """A frozen ``strong@vK`` or ``search@vK[:...]`` bot, named as asked."""
    base, sep, rest = name.partition(":")
    if base == "strong@v1" and not sep:
        from agents.bots.strong import StrongAgent

        bot = StrongAgent(seed)
    elif base == "strong@v2" and not sep:
        from agents.bots.strong_v2 import StrongV2Agent

        bot = StrongV2Agent(seed)
    elif base == "search@v1":
        from agents.bots.search import make_search

        bot = make_search("search" + sep + rest, seed)
    else:
        known = ", ".join(v for vs in VERSIONS.values() for v in vs)
        raise ValueError(f"unknown agent version {name!r}; known versions: {known} (search@vK:N)")
    bot.name = name
    return bot


def make_agent(name: str, seed: int | None = None, game: str = DEFAULT_GAME) -> Any:
    """A bot by registry name (``random``, ``greedy``, ``strong``, ``search[:N]``, a frozen
    ``strong@vK``/``search@vK[:N]``, ``search-oracle[:N]``, ``ppo:PATH`` or ``rllib:PATH``) for a game."""
    if game != DEFAULT_GAME:
        from agents.games import game_spec

        return game_spec(game).make_agent(name, seed)
    if name.startswith("ppo:"):
        ppo = importlib.import_module("agents.bots.ppo_agent")
        return ppo.load_agent(name[4:], seed)
    if name.startswith("bc:"):
        from agents.train.imitation import load_feature_agent

        return load_feature_agent(name[3:], seed=seed)
    if name.startswith("rllib:"):
        from agents.bots.rllib_agent import load_agent

        return load_agent(name[6:], seed)
    if "@" in name:
        return _versioned(name, seed)
    if name.startswith("strong-v2:"):
        from agents.bots.strong_v2 import make_variant

        return make_variant(name, seed)
    if name == "search-oracle" or name.startswith("search-oracle:"):
        from agents.bots.search_oracle import make_oracle_search

        return make_oracle_search(name, seed)
    if name == "random":
        from agents.bots.random_agent import RandomAgent

        return RandomAgent(seed)
    if name == "greedy":
        from agents.bots.greedy import GreedyAgent

        return GreedyAgent(seed)
    if name in ("search", "strong") or name.startswith("search:"):
        bot = _versioned(versioned_name(name), seed)
        bot.name = name
        return bot
    raise ValueError(
        f"unknown agent {name!r}; choose one of {', '.join(AGENT_NAMES)} search:N, NAME@vK, search-oracle, ppo:PATH, bc:PATH or rllib:PATH"
    )


__all__ = [
    "AGENT_NAMES",
    "CURRENT",
    "DEFAULT_GAME",
    "VERSIONS",
    "Agent",
    "PlayerView",
    "is_oracle",
    "make_agent",
    "versioned_name",
    "view_for",
]
