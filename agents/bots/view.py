"""The one view protocol of every game (``View``), and what every game's view derives alike.

A bot reads its seat's view, never the game: the contract game's
``agents.contract.view.PlayerView``, the fifteen-card game's ``FifteenView`` and the knock game's
``KnockView`` (both ``agents.side_common.SideView``) each copy out what the seat may see, and all
three offer ``View``'s members (tested).
"""

from __future__ import annotations

from typing import Any, Protocol

from continental_env.cards import NUM_TYPES


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


class ViewBase:
    """What every game's view derives from its own fields (``hand``, ``discard``), written once."""

    hand: list[int]
    discard: list[int]

    @property
    def discard_top(self) -> int | None:
        """The top card of the discard pile, or None."""
        return self.discard[-1] if self.discard else None

    def hand_cards(self) -> list[int]:
        """Sorted card ids of the own hand."""
        return [c for c in range(NUM_TYPES) for _ in range(self.hand[c])]


class ObservingView(View, Protocol):
    """A view that also gives its seat's environment observation (what trained policies read)."""

    def observation(self, version: int = 0) -> Any:
        """The environment's observation vector for this seat, of an observation version."""
        ...


__all__ = ["ObservingView", "View", "ViewBase"]
