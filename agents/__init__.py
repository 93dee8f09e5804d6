"""Agents for Continental: one ``act(view) -> action id`` protocol for every bot.

``make_agent(name, seed)`` builds a bot by name:

| name | bot |
|---|---|
| ``random`` | uniform over the legal actions (``agents.random_agent``) |
| ``greedy`` | the simplest sound play (``agents.greedy``) |
| ``strong`` | plays to win: card values from the cards seen, claims weighed (``agents.strong``) |
| ``search``, ``search:N`` | determinized search: N sampled worlds per decision, heuristic rollouts (``agents.search``) |
| ``ppo:PATH`` | a trained policy (``continental_v0`` or ``_v1``), loaded by ``agents.ppo_agent.load_agent(PATH, seed)`` |
| ``bc:PATH`` | the same for a ``continental_v1`` model only (``agents.imitation.load_feature_agent``) |
| ``rllib:PATH`` | a policy trained with Ray RLlib, ``agents.rllib_agent.load_agent(PATH, seed)`` |

The other games have their own bots: ``make_agent(name, seed, game="fifteen")`` asks that game's
``GameSpec`` (``agents.games``, where a game registers with one entry).
"""

from __future__ import annotations

import importlib
from typing import Any

from agents.base import Agent, PlayerView, view_for

AGENT_NAMES = ("random", "greedy", "strong", "search")
DEFAULT_GAME = "contract"


def make_agent(name: str, seed: int | None = None, game: str = DEFAULT_GAME) -> Any:
    """A bot by registry name (``random``, ``greedy``, ``strong``, ``search[:N]``, ``ppo:PATH`` or ``rllib:PATH``) for a game."""
    if game != DEFAULT_GAME:
        from agents.games import game_spec

        return game_spec(game).make_agent(name, seed)
    if name.startswith("ppo:"):
        ppo = importlib.import_module("agents.ppo_agent")
        return ppo.load_agent(name[4:], seed)
    if name.startswith("bc:"):
        from agents.imitation import load_feature_agent

        return load_feature_agent(name[3:], seed=seed)
    if name.startswith("rllib:"):
        from agents.rllib_agent import load_agent

        return load_agent(name[6:], seed)
    if name == "random":
        from agents.random_agent import RandomAgent

        return RandomAgent(seed)
    if name == "greedy":
        from agents.greedy import GreedyAgent

        return GreedyAgent(seed)
    if name == "search" or name.startswith("search:"):
        from agents.search import make_search

        return make_search(name, seed)
    if name == "strong":
        from agents.strong import StrongAgent

        return StrongAgent(seed)
    raise ValueError(
        f"unknown agent {name!r}; choose one of {', '.join(AGENT_NAMES)} search:N, ppo:PATH, bc:PATH or rllib:PATH"
    )


__all__ = [
    "AGENT_NAMES",
    "DEFAULT_GAME",
    "Agent",
    "PlayerView",
    "make_agent",
    "view_for",
]
