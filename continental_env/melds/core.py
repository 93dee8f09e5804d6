"""Meld primitives shared by the three games: kinds, the ``Meld`` record, validity, run spans.

Pure functions over card ids (``cards.py``); no game state. Runs are stored by their *start*:
position ``i`` of a run starting at ``start`` stands for rank ``(start + i) % 13`` (rank 0 = ace).
With ``ace_wraparound`` the start is 0..12 and the run is cyclic; without it the start is
0..13 - len, and position value 13 is the ace played high, so a run can never hold the ace at
both ends. The fifteen-card game's sequences and the knock game's lays are this module's runs
(and trios) under their own ``RuleConfig`` (``melds.fifteen``, ``melds.knock``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from continental_env.cards import (
    JOKER,
    NUM_RANKS,
    card_to_str,
    format_cards,
    make_card,
    rank_of,
    suit_of,
)
from continental_env.rules import RuleConfig

__all__ = [
    "HIGH",
    "LOW",
    "RUN",
    "TRIO",
    "Meld",
    "arrange_run",
    "is_valid_meld",
    "meld_from_row",
    "min_spans",
    "run_layout",
    "run_spans",
    "trio_rank",
    "window_cards",
]

TRIO = "trio"
RUN = "run"
LOW = "low"
HIGH = "high"


class Meld:
    """A meld on the table: its owner, kind and cards (a run's in sequence order)."""

    __slots__ = ("cards", "kind", "owner", "rank", "start", "suit")

    def __init__(
        self,
        owner: int,
        kind: str,
        cards: list[int],
        start: int = 0,
        rank: int = -1,
        suit: int = -1,
    ) -> None:
        self.owner = owner
        self.kind = kind
        self.cards = cards
        self.start = start  # runs: rank index of position 0 (see module docstring)
        self.rank = rank  # trios: the rank every card stands for
        self.suit = suit  # runs: the suit

    @classmethod
    def build(cls, owner: int, kind: str, cards: list[int], rules: RuleConfig) -> Meld:
        """A validated meld from cards (a run's in sequence order); ValueError if invalid."""
        if kind == TRIO:
            rank = trio_rank(cards)
            if rank is None:
                raise ValueError(f"not a valid trio: {_fmt(cards)}")
            return cls(owner, TRIO, list(cards), rank=rank)
        if kind == RUN:
            layout = run_layout(cards, rules)
            if layout is None:
                raise ValueError(f"not a valid run in this order: {_fmt(cards)}")
            suit, start = layout
            return cls(owner, RUN, list(cards), start=start, suit=suit)
        raise ValueError(f"meld kind {kind!r} must be 'trio' or 'run'")

    def copy(self) -> Meld:
        """An independent copy."""
        return Meld(self.owner, self.kind, list(self.cards), self.start, self.rank, self.suit)

    def to_dict(self) -> dict:
        """JSON form used by ``Game.to_dict``."""
        return {
            "owner": self.owner,
            "kind": self.kind,
            "cards": [card_to_str(c) for c in self.cards],
        }

    def represented(self, index: int) -> int:
        """The natural card type that position ``index`` stands for."""
        if self.kind == TRIO:
            return -1  # any suit of the trio's rank
        return make_card(self.suit, (self.start + index) % NUM_RANKS)

    def __repr__(self) -> str:
        return f"Meld({self.owner}, {self.kind}, {_fmt(self.cards)})"


def meld_from_row(row: tuple, owner: int = -1) -> Meld:
    """A ``Meld`` of ``owner`` from a search's (kind, cards, start, key) row, unchecked: ``key``
    is a trio's rank or a run's suit, ``start`` a run's (``best_arrangement``'s rows)."""
    kind, cards, start, key = row
    if kind == TRIO:
        return Meld(owner, TRIO, list(cards), rank=key)
    return Meld(owner, RUN, list(cards), start=start, suit=key)


def _fmt(cards: Sequence[int]) -> str:
    return format_cards(cards)


# ----------------------------------------------------------------------------- validity


def trio_rank(cards: Sequence[int]) -> int | None:
    """The rank of a valid trio (3+ cards, one rank, at least one natural), else None."""
    if len(cards) < 3:
        return None
    rank = -1
    for c in cards:
        if c == JOKER:
            continue
        r = rank_of(c)
        if rank == -1:
            rank = r
        elif r != rank:
            return None
    return None if rank == -1 else rank


def run_layout(cards: Sequence[int], rules: RuleConfig) -> tuple[int, int] | None:
    """(suit, start) of cards that form a valid run *in the order given*, else None."""
    n = len(cards)
    if n < rules.min_run or n > NUM_RANKS:
        return None
    suit = -1
    start = -1
    for i, c in enumerate(cards):
        if c == JOKER:
            continue
        s = suit_of(c)
        if suit == -1:
            suit = s
            start = (rank_of(c) - i) % NUM_RANKS
        elif s != suit or (start + i) % NUM_RANKS != rank_of(c):
            return None
    if suit == -1:
        return None  # a meld needs at least one natural card
    if rules.ace_wraparound:
        return suit, start
    # Linear aces: the ace may be low (value 0) or high (value 13), never both ends.
    for candidate in (start, start + NUM_RANKS):
        if candidate >= 0 and candidate + n - 1 <= NUM_RANKS:
            # the ace high only when the run does not also need it low
            if candidate == NUM_RANKS:
                continue
            return suit, candidate
    return None


def arrange_run(cards: Sequence[int], rules: RuleConfig) -> list[int] | None:
    """Order a multiset of cards as a valid run (jokers fill gaps, then the high end)."""
    n = len(cards)
    if n < rules.min_run or n > NUM_RANKS:
        return None
    found = _one_suit_ranks(cards)
    if found is None:
        return None
    suit, ranks = found
    starts = range(NUM_RANKS) if rules.ace_wraparound else range(NUM_RANKS + 1 - n + 1)
    for start in starts:
        if not rules.ace_wraparound and start + n - 1 > NUM_RANKS:
            continue
        present = {(start + i) % NUM_RANKS for i in range(n)}
        if all(r in present for r in ranks):
            # choose the start whose first position is a natural when possible
            rank_set = set(ranks)
            out = [
                make_card(suit, r) if r in rank_set else JOKER
                for r in ((start + i) % NUM_RANKS for i in range(n))
            ]
            if run_layout(out, rules) is not None:
                return out
    return None


def _one_suit_ranks(cards: Sequence[int]) -> tuple[int, list[int]] | None:
    """(suit, sorted ranks) of the naturals among ``cards`` when there is one at least, all of
    one suit and no rank twice; else None."""
    naturals = [c for c in cards if c != JOKER]
    if not naturals:
        return None
    suit = suit_of(naturals[0])
    ranks = sorted(rank_of(c) for c in naturals)
    if any(suit_of(c) != suit for c in naturals) or len(set(ranks)) != len(ranks):
        return None
    return suit, ranks


def is_valid_meld(kind: str, cards: Sequence[int], rules: RuleConfig) -> bool:
    """Whether the cards can form a meld of this kind (``"trio"`` or ``"run"``).

    A run is accepted in any order; its jokers then fill the gaps.
    """
    if kind == TRIO:
        return trio_rank(cards) is not None
    if kind == RUN:
        return run_layout(cards, rules) is not None or arrange_run(cards, rules) is not None
    raise ValueError(f"meld kind {kind!r} must be 'trio' or 'run'")


# ----------------------------------------------------------------------------- run spans


def run_spans(rules: RuleConfig) -> tuple[tuple[int, ...], ...]:
    """Rank lists of every run of exactly ``min_run`` positions these rules allow."""
    return min_spans(rules.min_run, rules.ace_wraparound)


@lru_cache(maxsize=16)
def window_cards(min_run: int, wrap: bool) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Per suit, the card ids of every window of ``min_spans`` (a run's naturals)."""
    spans = min_spans(min_run, wrap)
    return tuple(tuple(tuple(suit * 13 + r for r in ranks) for ranks in spans) for suit in range(4))


@lru_cache(maxsize=16)
def min_spans(min_run: int, wrap: bool) -> tuple[tuple[int, ...], ...]:
    """Rank lists of every run of exactly ``min_run`` positions."""
    starts = range(13) if wrap else range(14 - min_run + 1)
    return tuple(tuple((start + i) % 13 for i in range(min_run)) for start in starts)
