"""The one protocol every agent follows, in every game.

An agent is any object with ``name`` and ``act(view) -> int`` returning a legal action id, where
``view`` is what its seat may see (``View``): the contract game's ``agents.contract.view.PlayerView``,
the fifteen-card game's ``FifteenView``, the knock game's ``KnockView``. Each view exposes only
what the seat may see; tests check that no bot's decision changes when hidden cards change.
``SeededAgent`` is the base of the bots: a name, its own generator and ``act`` dispatched by
phase.

``PlayerView`` and ``view_for`` were defined here before 0.2.0; reading them from this module
still works for one release, with a ``DeprecationWarning`` (``agents/__init__.py`` lists every
moved name).
"""

from __future__ import annotations

import random
from typing import Protocol

from agents.bots.view import View


class Agent(Protocol):
    """Every agent: a name and a decision from a seat's view."""

    name: str

    def act(self, view: View) -> int:
        """A legal action id for ``view.seat``."""
        ...


class SeededAgent:
    """Base of the bots: a name, its own generator, and ``act`` dispatched by phase.

    Subclasses implement ``_draw(view, legal)``, ``_claim(view)`` and ``_play(view, legal)``, or
    override ``act`` itself.
    """

    name = "agent"

    def __init__(self, seed: int | random.Random | None = None) -> None:
        self.rng = seed if isinstance(seed, random.Random) else random.Random(seed)

    def act(self, view: View) -> int:
        """A legal action id for the seat to act."""
        legal = view.legal_actions
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action (phase {view.phase!r})")
        if view.phase == "draw":
            return self._draw(view, legal)
        if view.phase == "claim":
            return self._claim(view)
        return self._play(view, legal)

    def _draw(self, view: View, legal: list[int]) -> int:
        raise NotImplementedError

    def _claim(self, view: View) -> int:
        raise NotImplementedError

    def _play(self, view: View, legal: list[int]) -> int:
        raise NotImplementedError


__all__ = ["Agent", "SeededAgent", "View"]
