"""Agents for Continental: one ``act(view) -> action id`` protocol for every bot.

``make_agent(name, seed, game="contract")`` builds a bot by name from the one registry,
``agents.registry`` (its docstring lists every name of every game: ``random``, ``greedy``,
``strong``, ``strong@v1``, ``strong@v2``, ``search[:N]``, ``search-oracle``, ``ppo:PATH``,
``bc:PATH``, ``rllib:PATH`` ...). ``versioned_name`` says which frozen version a bare name plays;
``is_oracle`` tells the diagnostics that read the hidden state.

| package | what |
|---|---|
| ``agents.bots`` | the agent protocol and the game-neutral policies: random, trained networks at play time |
| ``agents.contract``, ``agents.fifteen``, ``agents.knock`` | each game's bots, view and ``GameSpec`` |
| ``agents.registry``, ``agents.games`` | every bot by name; every game's ``GameSpec`` |
| ``agents.spec`` | ``GameSpec``: how the front ends drive one game without knowing its rules |
| ``agents.side_spec``, ``agents.side_common``, ``agents.side_features`` | what the fifteen-card and knock games' specs, bots and feature observations share |
| ``agents.kl_ppo`` | the class path saved models know the KL policy by |
| ``agents.cli`` | ``continental COMMAND``: the one command line |
| ``agents.demo`` | ``python -m agents.demo``, the README's first command |
| ``agents.evaluate`` | the duplicate-deal harness, statistics, leaderboard, speed table |
| ``agents.text`` | text agents: a seat's view as a prompt, replies parsed back, ``llm:BASE_URL`` |
| ``agents.train`` | MaskablePPO training, behaviour cloning, tuning, single-learner envs |
| ``agents.rllib`` | Ray RLlib self-play (scale-out) |
| ``agents.play`` | the terminal table, each game's terminal words, and the demo |
| ``agents.speed`` | ``continental speed``: the speed table of every layer against another revision |

The contract game's bots moved from ``agents.bots`` into ``agents.contract`` in 0.2.0 (and the
terminal games into ``agents.play``); the old module paths import for one more release with a
``DeprecationWarning``.
"""

from __future__ import annotations

from agents.bots import base as _base
from agents.bots.base import Agent
from agents.contract.view import PlayerView, view_for
from agents.registry import (
    CURRENT,
    DEFAULT_GAME,
    VERSIONS,
    is_oracle,
    make_agent,
    offered,
    versioned_name,
)
from continental_env.registry import alias_modules, moved_names

AGENT_NAMES = offered(DEFAULT_GAME)

# Module paths before 0.2.0 (deprecated): the contract bots were ``agents.bots.*``, the terminal
# games ``agents.{fifteen,knock}.play`` and ``agents.play.terminal``.
alias_modules(
    {
        "agents.bots.strong": "agents.contract.strong",
        "agents.bots.strong_v2": "agents.contract.strong_tuned",
        "agents.bots.search": "agents.contract.search",
        "agents.bots.search_v2": "agents.contract.search_adaptive",
        "agents.bots.search_oracle": "agents.contract.search_oracle",
        "agents.bots.sampler": "agents.contract.sampler",
        "agents.bots.beliefs": "agents.contract.beliefs",
        "agents.bots.handtools": "agents.contract.handtools",
        "agents.bots.greedy": "agents.contract.greedy",
        "agents.bots.feature_agent": "agents.contract.feature_agent",
        "agents.knock.play": "agents.play.knock",
        "agents.fifteen.play": "agents.play.fifteen",
        "agents.play.terminal": "agents.play.contract",
        "agents.evaluate.speed": "agents.speed",
    },
    deprecated="0.3.0",
)
# Names that left a module that stays: the contract game's seat view left the bot protocol.
moved_names(
    _base.__name__,
    {"PlayerView": "agents.contract.view", "view_for": "agents.contract.view"},
    deprecated="0.3.0",
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
