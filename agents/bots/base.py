"""The one protocol every agent follows, in every game.

An agent is any object with ``name`` and ``act(view) -> int`` returning a legal action id, where
``view`` is what its seat may see (``View``): the contract game's ``agents.contract.view.PlayerView``,
the fifteen-card game's ``FifteenView``, the knock game's ``KnockView``. Each view exposes only
what the seat may see; tests check that no bot's decision changes when hidden cards change.
``SeededAgent`` is the base of the bots: a name, its own generator and ``act`` dispatched by
phase.

``PlayerView`` and ``view_for`` were defined here before 0.2.0; reading them from this module
still works for one release, with a ``DeprecationWarning``.
"""

from __future__ import annotations

import random
import warnings
from typing import Any, Protocol


class View(Protocol):
    """What every game's view offers a bot, copied out of the game for one seat: whose turn and
    phase it is, the own hand, the public piles and counts, the legal moves. A game's view adds
    its own public fields (the contract game's table and contract, knock's pot ...)."""

    seat: int
    num_players: int
    phase: str
    current: int
    dealer: int
    hand: list[int]  # counts per card type
    discard: list[int]  # the face-up pile, top last
    seen_discards: list[int]
    known: list[list[int]]  # per seat, the cards it is publicly known to hold
    hand_sizes: list[int]
    scores: list[int]
    stock_size: int
    turn: int
    legal_actions: list[int]  # empty unless the seat is to act

    @property
    def discard_top(self) -> int | None:
        """The top card of the discard pile, or None."""
        ...

    def hand_cards(self) -> list[int]:
        """Sorted card ids of the own hand."""
        ...

    def action_to_str(self, action: int) -> str:
        """Text form of an action id."""
        ...


class ObservingView(View, Protocol):
    """A view that also gives its seat's environment observation (what trained policies read)."""

    def observation(self, version: int = 0) -> Any:
        """The environment's observation vector for this seat, of an observation version."""
        ...


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


def __getattr__(name: str) -> Any:
    """``PlayerView`` and ``view_for`` of the contract game, from their new module (deprecated)."""
    if name in ("PlayerView", "view_for"):
        warnings.warn(
            f"agents.bots.base.{name} is deprecated and goes in 0.3.0; "
            f"import it from agents.contract.view",
            DeprecationWarning,
            stacklevel=2,
        )
        from agents.contract import view

        return getattr(view, name)
    raise AttributeError(f"module 'agents.bots.base' has no attribute {name!r}")


__all__ = ["Agent", "ObservingView", "SeededAgent", "View"]
