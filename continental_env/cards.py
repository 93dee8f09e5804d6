"""The one card codec of the project.

A card *type* is an int: ``suit * 13 + rank`` for the 52 naturals (suit 0..3 = C D H S,
rank 0..12 = A 2 .. K) and ``JOKER = 52``. Several decks are shuffled together, so hands,
piles and melds are multisets: a hand is a list of 53 counts indexed by card type.
Text appears only at the edges: ``7H TS AC JK``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

SUITS = "CDHS"
RANKS = "A23456789TJQK"
NUM_SUITS = 4
NUM_RANKS = 13
NUM_NATURALS = 52
JOKER = 52
NUM_TYPES = 53  # 52 naturals + the joker

_NAMES = [r + s for s in SUITS for r in RANKS] + ["JK"]
_BY_NAME = {name: i for i, name in enumerate(_NAMES)}
# Accept a few common spellings at the edges; output is always the canonical form.
_BY_NAME.update({"10" + s: _BY_NAME["T" + s] for s in SUITS})
_BY_NAME.update({"JOKER": JOKER, "*": JOKER})


def rank_of(card: int) -> int:
    """Rank index 0 (ace) .. 12 (king) of a natural card."""
    return card % 13


def suit_of(card: int) -> int:
    """Suit index 0..3 (C D H S) of a natural card."""
    return card // 13


def make_card(suit: int, rank: int) -> int:
    """Card type of a natural from its suit and rank indices."""
    return suit * 13 + rank


# The four naturals of each rank, clubs to spades: ``RANK_CARDS[0]`` are the aces.
RANK_CARDS: tuple[tuple[int, ...], ...] = tuple(
    tuple(make_card(suit, rank) for suit in range(NUM_SUITS)) for rank in range(NUM_RANKS)
)


def card_to_str(card: int) -> str:
    """Text form of one card type, e.g. ``7H`` or ``JK``."""
    if not 0 <= card < NUM_TYPES:
        raise ValueError(f"card id {card!r} is out of range 0..{NUM_TYPES - 1}")
    return _NAMES[card]


def card_from_str(text: str) -> int:
    """Card type from its text form (case-insensitive; ``10H`` is accepted for ``TH``)."""
    card = _BY_NAME.get(text.strip().upper())
    if card is None:
        raise ValueError(
            f"unknown card {text!r}: expected rank A23456789TJQK then suit CDHS, or JK"
        )
    return card


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Cards from text such as ``"7H TS JK"`` (or an iterable of card strings)."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [card_from_str(t) for t in tokens]


def format_cards(cards: Iterable[int]) -> str:
    """Text form of a sequence of cards, in the given order."""
    return " ".join(_NAMES[c] for c in cards)


def to_counts(cards: Iterable[int]) -> list[int]:
    """Multiset counts (length 53) of a sequence of cards."""
    counts = [0] * NUM_TYPES
    for c in cards:
        counts[c] += 1
    return counts


def from_counts(counts: Sequence[int]) -> list[int]:
    """Sorted card list of a multiset given as counts."""
    return [c for c in range(NUM_TYPES) for _ in range(counts[c])]


def sort_for_display(cards: Iterable[int]) -> list[int]:
    """Cards sorted by suit then rank, jokers last: the order a person holds them in."""
    return sorted(cards)
