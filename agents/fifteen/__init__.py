"""Bots for the fifteen-card game (RULES.md Part 2), on the one ``act(view) -> action id`` protocol.

``FifteenView`` is what a seat may see; ``make_agent(name, seed, game="fifteen")`` builds the bots
(``random``: ``agents.random_agent.RandomAgent`` on this view; ``greedy``: ``agents.fifteen.greedy``).
"""

from __future__ import annotations

from typing import Any

from agents.fifteen.view import FifteenView, view_for

__all__ = ["AGENT_NAMES", "FifteenView", "make_agent", "view_for"]


AGENT_NAMES = ("random", "greedy")


def make_agent(name: str, seed: int | None = None) -> Any:
    """A fifteen-card bot by name: ``random`` or ``greedy``."""
    if name == "random":
        from agents.random_agent import RandomAgent

        return RandomAgent(seed)
    if name == "greedy":
        from agents.fifteen.greedy import FifteenGreedyAgent

        return FifteenGreedyAgent(seed)
    raise ValueError(
        f"unknown agent {name!r} for the fifteen-card game; choose one of {', '.join(AGENT_NAMES)}"
    )
