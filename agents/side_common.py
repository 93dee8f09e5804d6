"""What the two side games' bot packages share (``agents.fifteen``, ``agents.knock``).

``SideView`` is what both side games' views copy out of a game for one seat, ``SideBot`` the
base of their deterministic bots, ``after_each_discard`` how their bots weigh a discard;
``agents.fifteen.view.FifteenView`` and ``agents.knock.view.KnockView`` derive from it and add
their game's public fields. ``agents.side_spec.SideEngine`` builds a side game's ``GameSpec``.

The view holds public information only: the seat's own hand, the discard pile, the cards every
seat is known to hold because it took them from the pile, hand sizes, totals, the stock's
size, the turn, the seat's AEC observation (leak-free, tested there) and, for the seat to act,
its legal actions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar, TypeVar

import numpy as np

from agents.bots.view import ViewBase

T = TypeVar("T")

# Each view class's observation layout by table size (built once: layouts never change).
_LAYOUTS: dict[tuple[type, int], dict[str, slice]] = {}


class SideView(ViewBase):
    """What seat ``seat`` may see of a side game. A subclass sets ``ENCODE`` (its env's
    ``encode_observation``), ``LAYOUT`` (its env's ``observation_layout``), ``TO_STR`` (its
    ``action_to_str``) and ``OWN``."""

    ENCODE: ClassVar[Callable[[Any, int, dict[str, slice]], np.ndarray]]
    LAYOUT: ClassVar[Callable[[int], dict[str, slice]]]
    TO_STR: ClassVar[Callable[[int], str]]
    # The game's own public fields, copied out of the game by name (a list as a new list).
    OWN: ClassVar[tuple[str, ...]] = ()

    def __init__(self, game: Any, seat: int) -> None:
        self.seat = seat
        self.num_players = game.num_players
        self.phase = game.phase
        self.current = game.current
        self.dealer = game.dealer
        self.hand_index = game.hand_index
        self.hand: list[int] = list(game.hands[seat])  # counts per card type
        self.discard: list[int] = list(game.discard)  # face-up pile, top last
        self.seen_discards: list[int] = list(game.seen_discards)
        self.known: list[list[int]] = [list(k) for k in game.known]
        self.hand_sizes = [game.hand_size(s) for s in range(game.num_players)]
        self.scores: list[int] = list(game.scores)
        self.stock_size = len(game.stock)
        self.turn = game.turn
        # The seat's observation vector of the AEC environment (leak-free, tested there), for
        # trained policies; copied out like the rest.
        self.observation: np.ndarray = self.ENCODE(game, seat, self._layout(game.num_players))
        # Legal actions depend only on the actor's own hand and public state.
        self.legal_actions: list[int] = list(game.legal_actions()) if game.actor == seat else []
        for name in self.OWN:
            value = getattr(game, name)
            setattr(self, name, list(value) if isinstance(value, list) else value)

    @classmethod
    def _layout(cls, num_players: int) -> dict[str, slice]:
        layout = _LAYOUTS.get((cls, num_players))
        if layout is None:
            layout = _LAYOUTS[cls, num_players] = cls.LAYOUT(num_players)
        return layout

    def action_to_str(self, action: int) -> str:
        """Text form of an action id."""
        return self.TO_STR(action)


class SideBot:
    """Base of the side games' deterministic bots: built from a seed like every bot (and
    ignoring it); ``act`` refuses a view without a legal action and hands the others to the
    bot's ``decide``."""

    name: ClassVar[str]

    def __init__(self, seed: object = None) -> None:
        del seed  # deterministic; the seed is accepted so every bot is built the same way

    def act(self, view: Any) -> int:
        """A legal action id for the seat to act."""
        legal = view.legal_actions
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action (phase {view.phase!r})")
        return self.decide(view, legal)

    def decide(self, view: Any, legal: list[int]) -> int:
        """One of ``legal`` (never empty), from the view alone."""
        raise NotImplementedError


def after_each_discard(
    hand: list[int], cards: Iterable[int], score: Callable[[list[int]], T]
) -> list[tuple[int, T]]:
    """``(card, score(the hand less that card))`` for each of ``cards`` (types held), in order:
    how the bots weigh their discards. ``score`` reads a working copy that it must not keep."""
    work = list(hand)
    scored = []
    for c in cards:
        work[c] -= 1
        scored.append((c, score(work)))
        work[c] += 1
    return scored


__all__ = ["SideBot", "SideView", "after_each_discard"]
