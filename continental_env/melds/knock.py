"""Lays and deadwood of the knock game (RULES.md Part 3).

A lay is 3+ cards of one rank (the contract game's trios: ``melds.core.trio_rank``) or 3+ cards of
one suit in consecutive rank, aces low or high but never around the corner (runs under
``LAY_RULES``: min_run 3, no wraparound); jokers wild, a natural in every lay. Card values are
``points_table`` of ``LAY_RULES`` (aces 15, jokers 20) or of ``KNOCKER_RULES`` (aces 1, for the
player who knocks). New here: the exact deadwood solver and the announcement checks (rummy,
color, continental).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from continental_env.cards import JOKER, NUM_RANKS, NUM_TYPES, rank_of, suit_of
from continental_env.melds.core import RUN, is_valid_meld, run_layout, trio_rank
from continental_env.rules import RuleConfig, points_table

__all__ = [
    "ACE_VALUES",
    "ANNOUNCE_SIZE",
    "KNOCKER_RULES",
    "LAY_RULES",
    "best_lays",
    "color_discards",
    "continental_discards",
    "deadwood",
    "deadwood_within",
    "is_color",
    "is_continental",
    "is_lay",
    "is_rummy",
    "rummy_discards",
]

LAY_RULES = RuleConfig(
    name="knock",
    min_run=3,
    ace_wraparound=False,
    card_points=(20, 15, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10),
)
KNOCKER_RULES = RuleConfig(
    name="knock",
    min_run=3,
    ace_wraparound=False,
    card_points=(20, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10),
)
ANNOUNCE_SIZE = 10  # knock, rummy, color and continental are announced with 10 cards
ACE_VALUES = (15, 1)  # an ace's deadwood: 15, or 1 in the knocker's own hand


def is_lay(cards: Sequence[int]) -> bool:
    """Whether the cards (in any order) form one knock-game lay."""
    return trio_rank(cards) is not None or is_valid_meld(RUN, cards, LAY_RULES)


def _values(ace: int) -> tuple[int, ...]:
    if ace not in ACE_VALUES:
        raise ValueError(f"ace={ace!r}: an ace counts 15, or 1 for the knocker")
    return points_table(LAY_RULES if ace == 15 else KNOCKER_RULES)


def _lowest_natural(work: list[int]) -> int:
    for c in range(JOKER):
        if work[c]:
            return c
    return -1


class _DeadwoodSearch:
    """Exact deadwood of one hand (counts per card type), with the lays that reach it.

    The lowest natural left is either deadwood or in exactly one lay (``_options``): a set of its
    rank (any sub-multiset of that rank's other naturals, jokers to make 3) or a run of its suit
    (every span of 3 positions holding it, and every longer span, up to 13, with naturals at both
    ends, since a longer run's end jokers could as well be spare; each other position its natural
    or a joker, both tried when both are there). Jokers left at the end cost nothing when some lay can hold
    them (a set holds any number, a run up to 13 cards), else their value each. ``solve`` finds
    the minimum (memoised by the cards left and that room); ``within`` only asks whether the
    deadwood can be at most a budget, and prunes every branch that exceeds it.
    """

    def __init__(self, values: tuple[int, ...], jokers: int) -> None:
        self.values = values
        self.jokers = jokers
        self.memo: dict[tuple[tuple[int, ...], int], tuple[int, tuple]] = {}

    def _options(self, work: list[int], c: int) -> list[tuple[tuple[int, ...], int]]:
        """Every lay holding natural ``c`` (already taken out of ``work``) with the other cards
        from ``work``: (the lay's cards, room it leaves for spare jokers). Sets first: any
        sub-multiset of the rank's other naturals, jokers to make 3; then runs."""
        out: list[tuple[tuple[int, ...], int]] = []
        rank = rank_of(c)
        same = [s * 13 + rank for s in range(4) if work[s * 13 + rank]]
        for picks in _product_ranges([work[card] for card in same]):
            taken = [card for card, n in zip(same, picks, strict=True) for _ in range(n)]
            need = max(0, 2 - len(taken))
            if need <= work[JOKER]:
                out.append(((c, *taken, *([JOKER] * need)), self.jokers))
        for vc in (rank, NUM_RANKS) if rank == 0 else (rank,):
            _add_run_options(work, c, vc, out)
        return out

    def solve(self, work: list[int], room: int) -> tuple[int, tuple]:
        room = min(room, self.jokers)
        key = (tuple(work), room)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        c = _lowest_natural(work)
        if c < 0:
            best: tuple[int, tuple] = (self.values[JOKER] * max(0, work[JOKER] - room), ())
            self.memo[key] = best
            return best
        work[c] -= 1
        cost, lays = self.solve(work, room)
        best = (self.values[c] + cost, lays)
        if best[0]:
            for lay, gain in self._options(work, c):
                _take(work, lay, c, -1)
                cost, lays = self.solve(work, room + gain)
                _take(work, lay, c, 1)
                if cost < best[0]:
                    best = (cost, (lay, *lays))
                    if not cost:
                        break
        work[c] += 1
        self.memo[key] = best
        return best

    def within(self, work: list[int], room: int, budget: int) -> bool:
        c = _lowest_natural(work)
        if c < 0:
            return self.values[JOKER] * max(0, work[JOKER] - min(room, self.jokers)) <= budget
        work[c] -= 1
        ok = self.values[c] <= budget and self.within(work, room, budget - self.values[c])
        if not ok:
            for lay, gain in self._options(work, c):
                _take(work, lay, c, -1)
                ok = self.within(work, room + gain, budget)
                _take(work, lay, c, 1)
                if ok:
                    break
        work[c] += 1
        return ok


def _add_run_options(
    work: list[int], c: int, vc: int, out: list[tuple[tuple[int, ...], int]]
) -> None:
    """Add to ``out`` the runs of ``c``'s suit holding it at position ``vc`` (13 is the ace
    high): of 3 positions, any holding c; longer, only spans with naturals at both ends (end
    jokers could as well be spare). Each other position its natural or a joker, both tried when
    both are there: (the run's cards, room it leaves for spare jokers)."""
    base = suit_of(c) * 13
    jokers = work[JOKER]
    for lo, hi in _run_spans_through(work, base, vc):
        slots = [
            (c,) if v == vc else tuple(x for x in (base + v % 13, JOKER) if work[x])
            for v in range(lo, hi + 1)
        ]
        missing = sum(1 for slot in slots if JOKER in slot and len(slot) == 1)
        if missing > jokers or any(not slot for slot in slots):
            continue
        for seq in _product_slots(slots):
            if seq.count(JOKER) <= jokers:
                out.append((seq, NUM_RANKS - len(seq)))


# Per position vc (0-13, 13 the ace high): the spans of 3 positions through it, and the
# (position, rank) pairs below and above it that a longer run's end may take.
_THREE_SPANS = tuple(
    tuple((lo, lo + 2) for lo in range(max(0, vc - 2), min(vc, NUM_RANKS - 2) + 1))
    for vc in range(NUM_RANKS + 1)
)
_BELOW = tuple(
    tuple((v, v % NUM_RANKS) for v in range(max(0, vc - 12), vc)) for vc in range(NUM_RANKS + 1)
)
_ABOVE = tuple(
    tuple((v, v % NUM_RANKS) for v in range(vc + 1, min(NUM_RANKS, vc + 12) + 1))
    for vc in range(NUM_RANKS + 1)
)


def _run_spans_through(work: list[int], base: int, vc: int) -> list[tuple[int, int]]:
    """(low, high) position spans of a run through position ``vc`` (sorted): every span of 3,
    and longer spans up to 13 whose ends hold naturals of the suit at ``base``."""
    lows = [v for v, r in _BELOW[vc] if work[base + r]]
    lows.append(vc)
    highs = [v for v, r in _ABOVE[vc] if work[base + r]]
    highs.insert(0, vc)
    spans = set(_THREE_SPANS[vc])
    spans.update((lo, hi) for lo in lows for hi in highs if 3 < hi - lo + 1 <= NUM_RANKS)
    return sorted(spans)


def _take(work: list[int], lay: tuple[int, ...], c: int, sign: int) -> None:
    """Take a lay's cards other than ``c`` out of ``work`` (sign -1) or put them back (+1)."""
    skipped = False
    for card in lay:
        if card == c and not skipped:
            skipped = True
            continue
        work[card] += sign


def _product_ranges(limits: list[int]) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = [()]
    for n in limits:
        out = [(*p, k) for p in out for k in range(n + 1)]
    return out


def _product_slots(slots: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = [()]
    for slot in slots:
        out = [(*p, x) for p in out for x in slot]
    return out


def _place_spare_jokers(lays: list[list[int]], spare: int) -> None:
    """Add jokers the solver left unplaced to the lays that hold them (sets first)."""
    for lay in lays:
        if spare and trio_rank(lay) is not None:
            lay.extend([JOKER] * spare)
            return
    for lay in lays:
        while spare and len(lay) < NUM_RANKS:
            layout = run_layout(lay, LAY_RULES)
            if layout is None:
                break
            _suit, start = layout
            if start + len(lay) - 1 < NUM_RANKS:
                lay.append(JOKER)
            else:
                lay.insert(0, JOKER)
            spare -= 1


@lru_cache(maxsize=100_000)
def _best_lays_cached(counts: tuple[int, ...], ace: int) -> tuple[int, tuple]:
    search = _DeadwoodSearch(_values(ace), counts[JOKER])
    return search.solve(list(counts), 0)


def best_lays(counts: Sequence[int], ace: int = 15) -> tuple[int, list[list[int]]]:
    """(deadwood, lays): the smallest deadwood of a hand and disjoint lays that leave it.

    ``counts`` is a hand as counts per card type; ``ace`` is 15, or 1 for the knocker's hand.
    Deadwood counts J Q K and 10 as 10, 2-9 their index, a joker 20 and an ace ``ace``. Each lay
    comes as a list of cards (a run's in sequence order, its jokers in their places); the
    jokers no lay needed are added to a lay that holds them. Exact; cached by the counts.
    """
    if len(counts) != NUM_TYPES or any(n < 0 for n in counts):
        raise ValueError("counts must be 53 non-negative card counts")
    cost, lays = _best_lays_cached(tuple(counts), ace)
    out = [list(lay) for lay in lays]
    used = sum(1 for lay in out for card in lay if card == JOKER)
    spare = counts[JOKER] - used
    if out and spare:
        _place_spare_jokers(out, spare)
    return cost, out


@lru_cache(maxsize=100_000)
def _within_cached(counts: tuple[int, ...], ace: int, budget: int) -> bool:
    search = _DeadwoodSearch(_values(ace), counts[JOKER])
    return search.within(list(counts), 0, budget)


def deadwood_within(counts: Sequence[int], budget: int, ace: int = 15) -> bool:
    """Whether the hand's smallest deadwood is at most ``budget`` (the knock test: 5, aces 1).

    The same search as ``best_lays`` with every branch over the budget cut off, so it is fast
    on the many hands far from it. Cached by the counts.
    """
    if len(counts) != NUM_TYPES:
        raise ValueError("counts must be 53 card counts")
    if _deadwood_lower_bound(counts, _values(ace)) > budget:
        return False
    return _within_cached(tuple(counts), ace, budget)


def deadwood(counts: Sequence[int], ace: int = 15) -> int:
    """The smallest deadwood of a hand (see ``best_lays``)."""
    if len(counts) != NUM_TYPES:
        raise ValueError("counts must be 53 card counts")
    return _best_lays_cached(tuple(counts), ace)[0]


def _suit_neighbours(c: int) -> tuple[int, ...]:
    """The naturals of ``c``'s suit one or two ranks from it, the ace next to the king too."""
    rank = c % NUM_RANKS
    base = c - rank
    if rank == 0:
        return (base + 1, base + 2, base + 11, base + 12)
    near = [base + rank - 1]
    if rank >= 2:
        near.append(base + rank - 2)
    if rank <= 11:
        near.append(base + rank + 1)
    if rank <= 10:
        near.append(base + rank + 2)
    if rank >= 11:
        near.append(base)
    return tuple(near)


_NEIGHBOURS = tuple(_suit_neighbours(c) for c in range(JOKER))


def _isolated_naturals(counts: Sequence[int]) -> list[int]:
    """Naturals with no other natural of their rank and no natural of their suit one or two ranks
    away (the ace next to the king too): each is in a lay only with jokers beside it."""
    out = []
    for c in range(JOKER):
        if counts[c] != 1:
            continue
        rank = c % NUM_RANKS
        if counts[rank] + counts[13 + rank] + counts[26 + rank] + counts[39 + rank] > 1:
            continue
        for near in _NEIGHBOURS[c]:
            if counts[near]:
                break
        else:
            out.append(c)
    return out


def _isolated_need(counts: Sequence[int]) -> int:
    """Jokers a hand needs at least to put every natural in a lay: one of its own for each
    isolated natural (``_isolated_naturals``), and two for the first."""
    isolated = len(_isolated_naturals(counts))
    return 0 if isolated == 0 else max(2, isolated)


def _deadwood_lower_bound(counts: Sequence[int], values: tuple[int, ...]) -> int:
    """A lower bound on the deadwood: an isolated natural joins a lay only with a joker of its
    own beside it (and no lay holds one with fewer than two jokers), so with j jokers at most j
    of them join lays (none with fewer than two) and the cheapest of the others stay out."""
    isolated = sorted(values[c] for c in _isolated_naturals(counts))
    rescued = counts[JOKER] if counts[JOKER] >= 2 else 0
    return sum(isolated[: max(0, len(isolated) - rescued)])


def is_rummy(counts: Sequence[int]) -> bool:
    """Whether every card of the hand is in some lay (deadwood 0)."""
    return sum(counts) > 0 and deadwood_within(counts, 0)


def is_color(counts: Sequence[int]) -> bool:
    """Whether every natural of the hand is of one suit (jokers count as that suit)."""
    suits = {suit_of(c) for c in range(JOKER) if counts[c]}
    return len(suits) == 1


def is_continental(counts: Sequence[int]) -> bool:
    """Whether the 10 cards form one lay: a 10-card straight flush, or 10 of one rank with at
    least 2 jokers (two decks hold 8 of a rank, so one lay of 10 of a rank always has them)."""
    if sum(counts) != ANNOUNCE_SIZE:
        return False
    cards = [c for c in range(NUM_TYPES) for _ in range(counts[c])]
    return is_lay(cards)


def rummy_discards(counts: Sequence[int]) -> list[int]:
    """Card types C of a hand whose discard leaves every other card in lays (sorted).

    Taking one card out can only leave other naturals more alone, so a hand with k >= 3
    isolated naturals (see ``_isolated_need``) and fewer than k - 1 jokers has none.
    """
    need = _isolated_need(counts)
    if need >= 3 and need - 1 > counts[JOKER]:  # 3 or more isolated naturals
        return []
    return _discards_where(counts, is_rummy)


def _discards_where(counts: Sequence[int], check: Callable[[Sequence[int]], bool]) -> list[int]:
    """Card types C whose discard leaves a hand that passes ``check`` (sorted)."""
    out = []
    rest = list(counts)
    for c in range(NUM_TYPES):
        if counts[c]:
            rest[c] -= 1
            if check(rest):
                out.append(c)
            rest[c] += 1
    return out


def color_discards(counts: Sequence[int]) -> list[int]:
    """Card types C of a hand whose discard leaves every natural of one suit (sorted)."""
    suits = sorted({suit_of(c) for c in range(JOKER) if counts[c]})
    if len(suits) == 1:
        return [c for c in range(NUM_TYPES) if counts[c]] if sum(counts) > 1 else []
    if len(suits) != 2:
        return []
    out = []
    for suit in suits:
        row = [c for c in range(suit * 13, suit * 13 + 13) if counts[c]]
        if len(row) == 1 and counts[row[0]] == 1:
            out.append(row[0])
    return sorted(out)


def continental_discards(counts: Sequence[int]) -> list[int]:
    """Card types C of an 11-card hand whose discard leaves 10 cards in one lay (sorted)."""
    if sum(counts) != ANNOUNCE_SIZE + 1:
        return []
    naturals = [c for c in range(JOKER) if counts[c]]
    if len({suit_of(c) for c in naturals}) > 2 and len({rank_of(c) for c in naturals}) > 2:
        return []  # one discard leaves cards of two suits and two ranks: no lay
    return _discards_where(counts, is_continental)
