"""Sequences and going-out shapes of the fifteen-card game (RULES.md Part 2).

A sequence is 3-5 cards of one suit in consecutive rank, aces low or high but never around the
corner, jokers wild with a natural in every sequence. Sequences are the contract game's runs
under ``SEQUENCE_RULES`` (min_run 3, no wraparound), so validity is ``melds.core``'s
``run_layout`` / ``is_valid_meld`` and the spans are ``min_spans``; only the exact-cover search
over the three going-out shapes is new here.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from continental_env.cards import JOKER, NUM_RANKS, rank_of, suit_of
from continental_env.melds.core import RUN, is_valid_meld, min_spans
from continental_env.rules import RuleConfig

__all__ = [
    "GOING_OUT_SHAPES",
    "GOING_OUT_SIZE",
    "SEQUENCE_LENGTHS",
    "SEQUENCE_RULES",
    "can_go_out",
    "going_out",
    "going_out_discards",
    "is_sequence",
    "sequence_spans",
]

SEQUENCE_RULES = RuleConfig(name="fifteen", min_run=3, ace_wraparound=False)
SEQUENCE_LENGTHS = (3, 4, 5)
# The only ways to go out with 15 cards: 3+3+3+3+3, 4+4+4+3, 5+4+3+3 (not 5+5+5, not 12+3).
GOING_OUT_SHAPES: tuple[tuple[int, ...], ...] = ((3, 3, 3, 3, 3), (4, 4, 4, 3), (5, 4, 3, 3))
GOING_OUT_SIZE = 15


def is_sequence(cards: Sequence[int]) -> bool:
    """Whether the cards (in any order) form one fifteen-card-game sequence of 3-5 cards."""
    return len(cards) in SEQUENCE_LENGTHS and is_valid_meld(RUN, cards, SEQUENCE_RULES)


def sequence_spans(length: int) -> tuple[tuple[int, ...], ...]:
    """Rank lists of every sequence of ``length`` positions (``A 2 3`` first, ``Q K A`` last)."""
    return min_spans(length, False)


def _cover(counts: list[int], lengths: tuple[int, ...], chosen: list[list[int]]) -> bool:
    """Exact cover of ``counts`` by one sequence of each of ``lengths``; ``chosen`` collects them.

    The lowest natural left must lie in some sequence: try every remaining length and every span
    holding its rank, each other position filled by its natural or by a joker. So no sequence is
    ever built without a natural, and jokers left over when the naturals run out fail the cover.
    """
    low = next((c for c in range(JOKER) if counts[c]), -1)
    if low < 0:
        return not lengths and counts[JOKER] == 0
    if not lengths:
        return False
    suit, rank = suit_of(low), rank_of(low)
    counts[low] -= 1
    for length in sorted(set(lengths), reverse=True):
        i = lengths.index(length)
        rest = lengths[:i] + lengths[i + 1 :]
        for span in sequence_spans(length):
            if rank in span and _fill(counts, suit, rank, span, 0, [], rest, chosen):
                counts[low] += 1
                return True
    counts[low] += 1
    return False


def _fill(
    counts: list[int],
    suit: int,
    rank: int,
    span: tuple[int, ...],
    k: int,
    cards: list[int],
    rest: tuple[int, ...],
    chosen: list[list[int]],
) -> bool:
    """Fill position ``k`` of ``span`` (the lowest natural holds ``rank``), then cover the rest."""
    if k == len(span):
        chosen.append(list(cards))
        if _cover(counts, rest, chosen):
            return True
        chosen.pop()
        return False
    r = span[k]
    if r == rank:
        cards.append(suit * 13 + r)
        ok = _fill(counts, suit, rank, span, k + 1, cards, rest, chosen)
        cards.pop()
        return ok
    for card in (suit * 13 + r, JOKER):
        if counts[card]:
            counts[card] -= 1
            cards.append(card)
            ok = _fill(counts, suit, rank, span, k + 1, cards, rest, chosen)
            cards.pop()
            counts[card] += 1
            if ok:
                return True
    return False


# About 0.8 KB an entry: 50,000 rows (a training worker meets a few thousand a game) stay ~40 MB.
@lru_cache(maxsize=50_000)
def _suit_options(row: tuple[int, ...], jokers: int) -> frozenset[tuple[int, tuple[int, ...]]]:
    """Every way to cover one suit's naturals (``row``: counts by rank) with sequences.

    Each option is (jokers used, sorted lengths); at most 5 sequences, at most ``jokers`` jokers.
    A hand's suits are covered independently (a sequence is one suit; only jokers are shared),
    and a hand's turn changes one suit, so this per-suit table is what the existence check caches.
    """
    found: set[tuple[int, tuple[int, ...]]] = set()
    seen: set[tuple[tuple[int, ...], int, tuple[int, ...]]] = set()
    work = list(row)

    def cover(used: int, lengths: tuple[int, ...]) -> None:
        key = (tuple(work), used, lengths)
        if key in seen:
            return
        seen.add(key)
        rank = next((r for r in range(NUM_RANKS) if work[r]), -1)
        if rank < 0:
            found.add((used, lengths))
            return
        if len(lengths) == 5:
            return
        work[rank] -= 1
        for length in SEQUENCE_LENGTHS:
            for span in sequence_spans(length):
                if rank in span:
                    place(
                        [r for r in span if r != rank], 0, used, tuple(sorted((*lengths, length)))
                    )
        work[rank] += 1

    def place(others: list[int], k: int, used: int, lengths: tuple[int, ...]) -> None:
        if k == len(others):
            cover(used, lengths)
            return
        r = others[k]
        if work[r]:
            work[r] -= 1
            place(others, k + 1, used, lengths)
            work[r] += 1
        if used < jokers:
            place(others, k + 1, used + 1, lengths)

    cover(0, ())
    return frozenset(found)


_SHAPE_SET = frozenset(tuple(sorted(shape)) for shape in GOING_OUT_SHAPES)


def _min_jokers(options: frozenset[tuple[int, tuple[int, ...]]]) -> int:
    return min((u for u, _ in options), default=GOING_OUT_SIZE)


def _combine(suit_options: list[frozenset[tuple[int, tuple[int, ...]]]], jokers: int) -> bool:
    """Whether one option per suit spends exactly ``jokers`` jokers and makes a legal shape."""
    if any(not o for o in suit_options) or sum(map(_min_jokers, suit_options)) > jokers:
        return False
    partial = {(0, ())}
    for options in suit_options:
        partial = {
            (u + v, tuple(sorted(a + b)))
            for u, a in partial
            for v, b in options
            if u + v <= jokers and len(a) + len(b) <= 5
        }
        if not partial:
            return False
    return any(u == jokers and lengths in _SHAPE_SET for u, lengths in partial)


def _rows(counts: Sequence[int]) -> list[tuple[int, ...]]:
    return [tuple(counts[suit * 13 : suit * 13 + 13]) for suit in range(4)]


def _shape_exists(counts: Sequence[int]) -> bool:
    """Existence of a going-out arrangement of exactly 15 cards, by combining per-suit options."""
    jokers = counts[JOKER]
    return _combine([_suit_options(r, jokers) for r in _rows(counts) if any(r)], jokers)


@lru_cache(maxsize=100_000)
def _can_go_out_cached(counts: tuple[int, ...]) -> bool:
    return sum(counts) == GOING_OUT_SIZE and _shape_exists(counts)


@lru_cache(maxsize=100_000)
def _going_out_cached(counts: tuple[int, ...]) -> tuple[tuple[int, ...], ...] | None:
    if sum(counts) != GOING_OUT_SIZE:
        return None
    # Quick refusal: the naturals of a suit that holds only 1 or 2 of them need 3 - n jokers to
    # make a sequence (jokers are never shared between suits).
    jokers = counts[JOKER]
    need = 0
    for suit in range(4):
        n = sum(counts[suit * 13 : suit * 13 + 13])
        if 0 < n < 3:
            need += 3 - n
    if need > jokers:
        return None
    for shape in GOING_OUT_SHAPES:
        chosen: list[list[int]] = []
        if _cover(list(counts), shape, chosen):
            return tuple(tuple(seq) for seq in chosen)
    return None


def going_out(counts: Sequence[int]) -> list[list[int]] | None:
    """An arrangement of exactly 15 cards (counts per card type) into one going-out shape.

    Each sequence comes in rank order with its jokers in their places (``run_layout`` under
    ``SEQUENCE_RULES`` accepts it); None when no shape fits. Cached by the counts (bounded).
    """
    found = _going_out_cached(tuple(counts))
    return None if found is None else [list(seq) for seq in found]


def can_go_out(counts: Sequence[int]) -> bool:
    """Whether exactly these 15 cards (counts per card type) go out in one of the shapes."""
    return _can_go_out_cached(tuple(counts))


def going_out_discards(counts: Sequence[int]) -> list[int]:
    """Card types C of a 16-card hand whose discard leaves 15 cards that go out (sorted).

    Discarding a natural changes one suit's options only, so the other suits' cached options are
    reused. A suit that cannot be covered at all must be the discard's suit, and a candidate
    whose other suits already need more jokers than the hand holds is refused at once.
    """
    if sum(counts) != GOING_OUT_SIZE + 1:
        return []
    jokers = counts[JOKER]
    rows, options, need = _suit_needs(counts)
    stuck = [suit for suit in range(4) if need[suit] > jokers]
    if len(stuck) > 1:
        return []  # one discard changes one suit
    total_need = sum(need)
    out = []
    for suit in stuck or range(4):
        if stuck == [] and total_need - need[suit] > jokers:
            continue
        out.extend(_natural_discards(rows[suit], suit, options, jokers))
    if jokers and not stuck and total_need < jokers and _joker_discard_goes_out(rows, jokers):
        out.append(JOKER)
    return out


def _suit_needs(counts: Sequence[int]) -> tuple[list, list, list[int]]:
    """Per suit: its row of counts, its cover options (None for an empty suit) and the fewest
    jokers they use (0 for an empty suit)."""
    jokers = counts[JOKER]
    rows = _rows(counts)
    options = [_suit_options(r, jokers) if any(r) else None for r in rows]
    need = [0 if o is None else _min_jokers(o) for o in options]
    return rows, options, need


def _joker_discard_goes_out(rows: list[tuple[int, ...]], jokers: int) -> bool:
    """Whether the hand goes out after discarding one of its ``jokers``."""
    fewer_jokers = [_suit_options(r, jokers - 1) for r in rows if any(r)]
    return _combine(fewer_jokers, jokers - 1)


def _natural_discards(
    row: tuple[int, ...],
    suit: int,
    options: list[frozenset[tuple[int, tuple[int, ...]]] | None],
    jokers: int,
) -> list[int]:
    """Naturals of ``suit`` (its ``row`` of counts) whose discard lets the hand go out, given
    every suit's cover ``options`` (None for a suit without cards)."""
    others = [o for k, o in enumerate(options) if k != suit and o is not None]
    out = []
    for rank in range(NUM_RANKS):
        if not row[rank]:
            continue
        fewer = list(row)
        fewer[rank] -= 1
        trial = list(others)
        if any(fewer):
            trial.append(_suit_options(tuple(fewer), jokers))
        if _combine(trial, jokers):
            out.append(suit * 13 + rank)
    return out
