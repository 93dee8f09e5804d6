"""Distance to the contract: the fewest cards a hand needs before it can lay the contract down,
and which card types bring it nearer (the ``continental_v1`` features ``distance``,
``reducers``, ``in_trio``, ``in_run``, ``deadwood``; ``continental_env.contract.features``).

Its own search over the same run windows as ``melds.contract`` (``window_cards``), since it asks
a different question: not whether or how the contract goes down now, but how far it is, for
every hand, with the first best plan's use of each card. ``has_contract`` is its reference (a
distance of 0 exactly when ``has_contract``; ``tests/test_features.py`` and
``tests/test_melds_package.py``). Why it is not folded onto ``ContractSearch`` or
``contract_exists``, with figures: ``melds.contract``'s docstring.

``hand_analysis`` runs the compiled kernel when built (``continental_env.kernels``), else
``hand_analysis_reference``, the readable definition here.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from continental_env import kernels
from continental_env.cards import JOKER, NUM_RANKS, NUM_TYPES
from continental_env.melds.core import window_cards
from continental_env.rules import RuleConfig

__all__ = ["contract_distance", "hand_analysis", "hand_analysis_reference", "reducing_cards"]

# The distance counts card slots: a lay-down needs ``3 x trios + min_run x runs`` cards in melds
# and one more in hand. Minimal melds are enough (any trio holds three of its cards, any run a
# window of ``min_run`` consecutive positions, and dropping cards never leaves more slots empty),
# so a *plan* is a choice of ``runs`` windows (``window_cards``: a suit and ``min_run``
# positions) and ``trios`` ranks, repeats allowed. Runs take every hand natural they cover, then
# each trio rank takes what is left of its rank (moving a natural from a run to a trio of its rank
# empties one slot to fill another, so this is exact), and the hand's jokers fill any empty slots.
# With ``k`` cards added, a plan is laid down once ``empty - jokers <= k`` and
# ``hand + k >= slots + 1``; the distance is the smallest such ``k`` over all plans. A card type
# reduces it exactly when it fills an empty slot of some plan at that distance (any card does
# when the card kept back is what is missing). ``melds.has_contract`` is the reference: the tests
# check the distance against adding every multiset of cards on small hands.


@lru_cache(maxsize=64)
def _windows_for(min_run: int, wrap: bool) -> tuple[tuple[int, ...], ...]:
    """Card ids of every run window (a suit and ``min_run`` consecutive positions), suit by
    suit: ``window_cards`` flattened."""
    return tuple(window for suit in window_cards(min_run, wrap) for window in suit)


@lru_cache(maxsize=65_536)
def _trio_choice(
    left: tuple[int, ...], trios: int
) -> tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """The cheapest ``trios`` trio ranks given the naturals left per rank: (empty slots, the
    ranks, ranks whose trio has no natural, ranks whose trio has an empty slot in some cheapest
    choice). Marginal costs per rank never fall, so the cheapest items make a cheapest choice."""
    items = []  # (marginal empty slots, rank, trio number m, naturals of the rank left)
    for r in range(NUM_RANKS):
        n = left[r]
        prev = 0
        for m in range(1, trios + 1):
            total = max(0, 3 * m - n)
            items.append((total - prev, r, m, n))
            prev = total
    items.sort()
    chosen = items[:trios]
    threshold = chosen[-1][0] if chosen else 0
    return (
        sum(x[0] for x in chosen),
        tuple(r for _, r, _, _ in chosen),
        tuple(r for _, r, m, n in chosen if m > n),  # a trio with no natural of the hand
        tuple(sorted({r for marginal, r, _, _ in items if 0 < marginal <= threshold})),
    )


_NO_TRIOS = (0, (), (), ())


class _Plans:
    """Branch and bound over run windows; trio ranks by their marginal costs at each leaf."""

    def __init__(self, counts: tuple[int, ...], trios: int, runs: int, rules: RuleConfig) -> None:
        self.trios = trios
        self.runs = runs
        self.jokers = counts[JOKER]
        self.hand_size = sum(counts)
        self.slots = 3 * trios + rules.min_run * runs
        windows = _windows_for(rules.min_run, rules.ace_wraparound)
        # Best first: windows covering more hand naturals (their static empty count is a bound).
        scored = sorted(((sum(1 for c in w if counts[c]), w) for w in windows), key=lambda x: -x[0])
        self.windows = [w for _, w in scored]
        self.static_empty = [len(w) - n for n, w in scored]
        self.best = 10**9
        self.reducers: set[int] = set()  # cards that bring some best plan nearer
        self.plan: tuple | None = None  # the first best plan: (naturals of each run, trio ranks)

    def search(self, counts: tuple[int, ...]) -> None:
        self._runs(list(counts), 0, 0, 0, [], [], [])

    def _bound(self, empty: int, seeds: int) -> int:
        return max(empty - self.jokers, self.slots + 1 - self.hand_size, seeds, 0)

    def _runs(
        self, work: list[int], first: int, empty: int, seeds: int, missing: list, bare: list,
        used: list,
    ) -> None:  # fmt: skip
        left = self.runs - len(used)
        if left == 0:
            self._trios(work, empty, seeds, missing, bare, used)
            return
        for i in range(first, len(self.windows)):
            if self.best == 0:
                return  # in hand: no card reduces a distance of 0, the first plan is kept
            if self._bound(empty + left * self.static_empty[i], seeds) > self.best:
                break  # windows are sorted: none further can do as well
            window = self.windows[i]
            took = [c for c in window if work[c]]
            gaps = [c for c in window if not work[c]]
            for c in took:
                work[c] -= 1
            used.append(took)
            if took:
                self._runs(work, i, empty + len(gaps), seeds, missing + gaps, bare, used)
            else:  # no hand natural: one added card must be a natural of it
                self._runs(work, i, empty + len(gaps), seeds + 1, missing + gaps, bare + gaps,
                           used)  # fmt: skip
            used.pop()
            for c in took:
                work[c] += 1

    def _trios(
        self, work: list[int], empty: int, seeds: int, missing: list, bare: list, runs_used: list
    ) -> None:
        if max(empty - self.jokers, self.slots + 1 - self.hand_size, seeds) > self.best:
            return  # trios only add empty slots
        if self.trios:  # naturals left per rank (zip of the four suits' rows)
            rows = work[0:13], work[13:26], work[26:39], work[39:52]
            left = tuple(map(sum, zip(*rows, strict=True)))
            trio_empty, chosen_ranks, trio_bare, fill_ranks = _trio_choice(left, self.trios)
        else:  # a contract of runs only: no trio to choose
            trio_empty, chosen_ranks, trio_bare, fill_ranks = _NO_TRIOS
        term_empty = empty + trio_empty - self.jokers
        term_hand = self.slots + 1 - self.hand_size
        term_seed = seeds + len(trio_bare)
        cost = max(term_empty, term_hand, term_seed, 0)
        if cost > self.best:
            return
        if cost < self.best:
            self.best = cost
            self.reducers = set()
            self.plan = ([list(t) for t in runs_used], list(chosen_ranks), work[:])
        if cost == 0:
            return
        # A card reduces this plan's distance when it lowers every term at the maximum.
        allowed: set[int] | None = None
        if term_empty == cost:
            fill = set(missing)
            fill.add(JOKER)
            for r in fill_ranks:
                fill.update(s * NUM_RANKS + r for s in range(4))
            allowed = fill
        if term_seed == cost:
            seed = set(bare)
            for r in trio_bare:
                seed.update(s * NUM_RANKS + r for s in range(4))
            allowed = seed if allowed is None else allowed & seed
        if allowed is None:  # only the card kept back is missing: any card does
            allowed = set(range(NUM_TYPES))
        self.reducers |= allowed


@lru_cache(maxsize=8_192)
def hand_analysis(
    counts: tuple[int, ...], trios: int, runs: int, rules: RuleConfig
) -> tuple[int, frozenset[int], tuple[int, ...], tuple[int, ...]]:
    """(distance, card types that reduce it, hand cards in trios, hand cards in runs).

    Cached: it depends on the hand, the contract and the rules only. The compiled kernel runs
    when built (``continental_env.kernels``), else ``hand_analysis_reference``.
    """
    native = kernels.native
    if native is not None:
        return native.hand_analysis(counts, trios, runs, rules.min_run, rules.ace_wraparound)
    return hand_analysis_reference(counts, trios, runs, rules)


def hand_analysis_reference(
    counts: tuple[int, ...], trios: int, runs: int, rules: RuleConfig
) -> tuple[int, frozenset[int], tuple[int, ...], tuple[int, ...]]:
    """``hand_analysis`` in pure Python: the readable definition the kernel follows."""
    plans = _Plans(counts, trios, runs, rules)
    plans.search(counts)
    in_trio = [0] * NUM_TYPES
    in_run = [0] * NUM_TYPES
    assert plans.plan is not None  # every window and rank is a plan
    run_naturals, trio_ranks, left = plans.plan
    for took in run_naturals:
        for c in took:
            in_run[c] += 1
    for r in set(trio_ranks):
        for s in range(4):
            c = s * NUM_RANKS + r
            in_trio[c] += left[c]
    jokers = counts[JOKER]
    if jokers:
        placed = sum(in_trio) + sum(in_run)
        used = min(jokers, plans.slots - placed)
        (in_run if runs else in_trio)[JOKER] = max(0, used)
    return plans.best, frozenset(plans.reducers), tuple(in_trio), tuple(in_run)


def contract_distance(counts: Sequence[int], trios: int, runs: int, rules: RuleConfig) -> int:
    """Fewest cards to add before the contract can be laid down (see the module docstring)."""
    return hand_analysis(tuple(counts), trios, runs, rules)[0]


def reducing_cards(counts: Sequence[int], trios: int, runs: int, rules: RuleConfig) -> list[int]:
    """Card types whose addition reduces the distance to the contract (none at distance 0)."""
    return sorted(hand_analysis(tuple(counts), trios, runs, rules)[1])
