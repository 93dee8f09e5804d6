"""The fifteen-card and knock games' learner seat: ``SingleAgentSideGame``, which lives in
``continental_env.single_agent`` beside the contract game's (its docstring documents both)."""

from __future__ import annotations

from typing import Any

from continental_env.single_agent import (
    FALLBACK,
    GAMES,
    ILLEGAL_MODES,
    SELF,
    Opponent,
    SingleAgentSideGame,
)

__all__ = [
    "FALLBACK",
    "GAMES",
    "ILLEGAL_MODES",
    "SELF",
    "Opponent",
    "SingleAgentSideGame",
    "make_env",
]


def make_env(**kwargs: Any) -> SingleAgentSideGame:
    """A ``SingleAgentSideGame`` (keyword arguments as its constructor)."""
    return SingleAgentSideGame(**kwargs)
