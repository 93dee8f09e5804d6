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
from itertools import product

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
