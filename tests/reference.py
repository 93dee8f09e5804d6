"""Independent brute-force references for meld validity and the contract search.

Written from RULES.md alone, without the engine's meld code: a run is checked against every
sequence of consecutive ranks it could stand for, and a contract by enumerating every way of
assigning the hand's cards to the contract's melds (each meld a sub-multiset of the hand).
Slow on purpose; the Hypothesis tests keep hands small.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from functools import cache
from itertools import permutations, product

from continental_env.cards import JOKER, rank_of, suit_of
from continental_env.rules import RuleConfig, points_table


def examples(n: int) -> int:
    """A Hypothesis budget, scaled by ``HYPOTHESIS_SCALE`` for long local runs."""
    return n * int(os.environ.get("HYPOTHESIS_SCALE", "1"))


@cache
def rank_sequences(length: int, wrap: bool) -> tuple[tuple[int, ...], ...]:
    """Every sequence of rank indices (0 = ace) a run of ``length`` cards may stand for."""
    if not 1 <= length <= 13:
        return ()
    if wrap:
        return tuple(tuple((s + i) % 13 for i in range(length)) for s in range(13))
    # Values 1..14 with 14 the ace high: a window of at most 13 never holds both aces.
    return tuple(
        tuple((v + i) % 13 if v + i <= 13 else 0 for i in range(length))
        for v in range(0, 14 - length + 1)
    )


def ref_trio(cards: Sequence[int]) -> bool:
    """3+ cards, at least one natural, every natural of one rank."""
    naturals = [c for c in cards if c != JOKER]
    return len(cards) >= 3 and bool(naturals) and len({rank_of(c) for c in naturals}) == 1


def ref_run(cards: Sequence[int], rules: RuleConfig, ordered: bool = False) -> bool:
    """min_run..13 cards of one suit standing for consecutive ranks (``ordered``: as given)."""
    n = len(cards)
    naturals = [c for c in cards if c != JOKER]
    if not naturals or not rules.min_run <= n <= 13 or len({suit_of(c) for c in naturals}) > 1:
        return False
    for seq in rank_sequences(n, rules.ace_wraparound):
        if ordered:
            if all(c == JOKER or rank_of(c) == seq[i] for i, c in enumerate(cards)):
                return True
        else:
            ranks = [rank_of(c) for c in naturals]
            if len(set(ranks)) == len(ranks) and set(ranks) <= set(seq):
                return True
    return False


def ref_meld(kind: str, cards: Sequence[int], rules: RuleConfig, ordered: bool = False) -> bool:
    """Reference validity of a meld of either kind."""
    return ref_trio(cards) if kind == "trio" else ref_run(cards, rules, ordered)


def _sub_multisets(hand: Counter[int]) -> list[tuple[int, ...]]:
    items = sorted(hand.items())
    out = []
    for picks in product(*(range(n + 1) for _c, n in items)):
        sub = tuple(c for (c, _n), k in zip(items, picks, strict=True) for _ in range(k))
        if sub:
            out.append(sub)
    return out


def ref_best_leftover(hand: Sequence[int], trios: int, runs: int, rules: RuleConfig) -> int | None:
    """Fewest points left in hand over every legal lay-down, or None if there is none.

    A lay-down is exactly ``trios`` trios and ``runs`` runs, pairwise disjoint sub-multisets of
    the hand, leaving at least one card in hand.
    """
    pts = points_table(rules)
    full = Counter(hand)
    subs = _sub_multisets(full)
    trio_cands = [Counter(s) for s in subs if trios and ref_trio(s)]
    run_cands = [Counter(s) for s in subs if runs and ref_run(s, rules)]
    total = len(hand)
    best: list[int | None] = [None]

    def search(left: Counter[int], kinds: list[tuple[list[Counter[int]], int]]) -> None:
        if not kinds:
            if sum(left.values()) >= 1:
                value = sum(pts[c] * n for c, n in left.items())
                if best[0] is None or value < best[0]:
                    best[0] = value
            return
        (cands, first), rest = kinds[0], kinds[1:]
        need_after = len(rest)  # each further meld needs at least one card
        for i in range(first, len(cands)):
            cand = cands[i]
            if any(left[c] < n for c, n in cand.items()):
                continue
            after = left - cand
            if sum(after.values()) < need_after + 1:
                continue
            nxt = rest
            if rest and rest[0][0] is cands:  # same kind: keep indices non-decreasing
                nxt = [(cands, i), *rest[1:]]
            search(after, nxt)

    plan: list[tuple[list[Counter[int]], int]] = [(trio_cands, 0)] * trios + [(run_cands, 0)] * runs
    if total >= 3 * trios + rules.min_run * runs + 1:
        search(full, plan)
    return best[0]


def _extensions(kind: str, cards: Sequence[int], added: Sequence[int], rules: RuleConfig) -> bool:
    """Whether ``added`` can all be laid off on a table meld (a run only at its ends)."""
    if not added:
        return True
    if kind == "trio":
        return ref_trio([*cards, *added])
    for low in set(permutations(added)):
        for k in range(len(low) + 1):
            if ref_run([*low[:k], *cards, *low[k:]], rules, ordered=True):
                return True
    return False


def ref_layoff_outcome(
    left: Sequence[int],
    table: Sequence[tuple[str, Sequence[int]]],
    rules: RuleConfig,
) -> tuple[int, int]:
    """Fewest (cards, points) left after laying off ``left`` onto the ``table`` melds (each
    ``(kind, cards in order)``), one card at least staying in hand."""
    pts = points_table(rules)
    best: tuple[int, int] | None = None
    cards = list(left)
    for targets in product(range(len(table) + 1), repeat=len(cards)):
        kept = [c for c, t in zip(cards, targets, strict=True) if t == len(table)]
        if not kept:
            continue
        key = (len(kept), sum(pts[c] for c in kept))
        if best is not None and key >= best:
            continue
        if all(
            _extensions(
                kind,
                meld,
                [c for c, t in zip(cards, targets, strict=True) if t == i],
                rules,
            )
            for i, (kind, meld) in enumerate(table)
        ):
            best = key
    assert best is not None
    return best


def ref_best_laydown(
    hand: Sequence[int],
    trios: int,
    runs: int,
    rules: RuleConfig,
    table: Sequence[tuple[str, Sequence[int]]] = (),
) -> tuple[int, int, int] | None:
    """RULES 1.4's lay-down choice by brute force: over every legal lay-down (``trios`` trios
    and ``runs`` runs of any length, disjoint, one card left) and every way to lay the rest off
    on the table melds, the fewest (cards left, points left, points right after the lay-down)."""
    pts = points_table(rules)
    full = Counter(hand)
    subs = _sub_multisets(full)
    trio_cands = [Counter(s) for s in subs if trios and ref_trio(s)]
    run_cands = [Counter(s) for s in subs if runs and ref_run(s, rules)]
    best: list[tuple[int, int, int] | None] = [None]

    def search(left: Counter[int], kinds: list[tuple[list[Counter[int]], int]]) -> None:
        if not kinds:
            rest = list(left.elements())
            if rest:
                after = sum(pts[c] for c in rest)
                # own melds grow by lay-offs too: offer them as table melds of their own
                key = (*ref_layoff_outcome(rest, list(table) + own_melds, rules), after)
                if best[0] is None or key < best[0]:
                    best[0] = key
            return
        (cands, first), rest_kinds = kinds[0], kinds[1:]
        for i in range(first, len(cands)):
            cand = cands[i]
            if any(left[c] < n for c, n in cand.items()):
                continue
            kind = "trio" if cands is trio_cands else "run"
            own_melds.append((kind, _ordered(kind, list(cand.elements()), rules)))
            nxt = rest_kinds
            if rest_kinds and rest_kinds[0][0] is cands:
                nxt = [(cands, i), *rest_kinds[1:]]
            search(left - cand, nxt)
            own_melds.pop()

    own_melds: list[tuple[str, list[int]]] = []
    plan = [(trio_cands, 0)] * trios + [(run_cands, 0)] * runs
    if len(hand) >= 3 * trios + rules.min_run * runs + 1:
        search(full, plan)
    return best[0]


def _ordered(kind: str, cards: list[int], rules: RuleConfig) -> list[int]:
    """A run's cards in one sequence order (jokers in the gaps, then at the ends)."""
    if kind == "trio":
        return cards
    naturals = [c for c in cards if c != JOKER]
    for seq in rank_sequences(len(cards), rules.ace_wraparound):
        by_rank = {rank_of(c): c for c in naturals}
        if len(by_rank) == len(naturals) and set(by_rank) <= set(seq):
            return [by_rank.get(r, JOKER) for r in seq]
    raise AssertionError(f"not a run: {cards}")
