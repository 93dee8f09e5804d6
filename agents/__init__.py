"""Agents for Continental: one ``act(view) -> action id`` protocol for every bot.

``make_agent(name, seed, game="contract")`` builds a bot by name from the one registry,
``agents.registry`` (its docstring lists every name of every game: ``random``, ``greedy``,
``strong``, ``strong@v1``, ``strong@v2``, ``search[:N]``, ``search-oracle``, ``ppo:PATH``,
``bc:PATH``, ``rllib:PATH`` ...). ``versioned_name`` says which frozen version a bare name plays;
``is_oracle`` tells the diagnostics that read the hidden state.

| package | what |
|---|---|
| ``agents.bots`` | the contract game's bots and trained policies at play time |
| ``agents.fifteen``, ``agents.knock`` | the other two games' bots, views and ``GameSpec`` |
| ``agents.registry``, ``agents.games`` | every bot by name; every game's ``GameSpec`` |
| ``agents.evaluate`` | the duplicate-deal harness, statistics, leaderboard, speed table |
| ``agents.train`` | MaskablePPO training, behaviour cloning, tuning, single-learner envs |
| ``agents.rllib`` | Ray RLlib self-play (scale-out) |
| ``agents.play`` | the terminal table and the demo |
"""

from __future__ import annotations

from agents.bots.base import Agent, PlayerView, view_for
from agents.registry import (
    CURRENT,
    DEFAULT_GAME,
    VERSIONS,
    is_oracle,
    make_agent,
    offered,
    versioned_name,
)

AGENT_NAMES = offered(DEFAULT_GAME)

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
