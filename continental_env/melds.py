"""The one meld validator: meld validity, lay-off and joker-swap targets, contract search.

Pure functions over card ids and count vectors (``cards.py``); no game state, no gymnasium.
The engine, the action masks and the bots all call these.

Runs are stored by their *start*: position ``i`` of a run starting at ``start`` stands for rank
``(start + i) % 13`` (rank 0 = ace). With ``ace_wraparound`` the start is 0..12 and the run is
cyclic; without it the start is 0..13 - len, and position value 13 is the ace played high, so a
run can never hold the ace at both ends.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import accumulate, combinations, combinations_with_replacement, product

from continental_env import kernels
from continental_env.cards import (
    JOKER,
    NUM_RANKS,
    NUM_TYPES,
    RANK_CARDS,
    make_card,
    rank_of,
    suit_of,
)
from continental_env.rules import RuleConfig, contract_for_round, points_table

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
        from continental_env.cards import card_to_str

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


def _fmt(cards: Sequence[int]) -> str:
    from continental_env.cards import format_cards

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
    naturals = [c for c in cards if c != JOKER]
    if not naturals:
        return None
    suit = suit_of(naturals[0])
    ranks = sorted(rank_of(c) for c in naturals)
    if any(suit_of(c) != suit for c in naturals) or len(set(ranks)) != len(ranks):
        return None
    starts = range(NUM_RANKS) if rules.ace_wraparound else range(NUM_RANKS + 1 - n + 1)
    for start in starts:
        if not rules.ace_wraparound and start + n - 1 > NUM_RANKS:
            continue
        present = {(start + i) % NUM_RANKS for i in range(n)}
        if all(r in present for r in ranks):
            # choose the start whose first position is a natural when possible
            out = []
            rank_set = set(ranks)
            for i in range(n):
                r = (start + i) % NUM_RANKS
                out.append(make_card(suit, r) if r in rank_set else JOKER)
            if run_layout(out, rules) is not None:
                return out
    return None


def is_valid_meld(kind: str, cards: Sequence[int], rules: RuleConfig) -> bool:
    """Whether the cards can form a meld of this kind (``"trio"`` or ``"run"``).

    A run is accepted in any order; its jokers then fill the gaps.
    """
    if kind == TRIO:
        return trio_rank(cards) is not None
    if kind == RUN:
        return run_layout(cards, rules) is not None or arrange_run(cards, rules) is not None
    raise ValueError(f"meld kind {kind!r} must be 'trio' or 'run'")


# ----------------------------------------------------------------------------- lay-offs


def run_can_extend(meld: Meld, end: str, rules: RuleConfig) -> bool:
    """Whether a run has room for one more card at the given end."""
    n = len(meld.cards)
    if n >= NUM_RANKS:
        return False
    if rules.ace_wraparound:
        return True
    if end == LOW:
        return meld.start > 0
    return meld.start + n - 1 < NUM_RANKS


def natural_layoff_end(meld: Meld, card: int, rules: RuleConfig) -> str | None:
    """The end of a run where a natural card extends it (high preferred), else None."""
    if suit_of(card) != meld.suit:
        return None
    r = rank_of(card)
    n = len(meld.cards)
    if run_can_extend(meld, HIGH, rules) and (meld.start + n) % NUM_RANKS == r:
        return HIGH
    if run_can_extend(meld, LOW, rules) and (meld.start - 1) % NUM_RANKS == r:
        return LOW
    return None


def end_card(meld: Meld, end: str, rules: RuleConfig) -> int | None:
    """The natural card that would extend a run at ``end``, or None if that end is closed."""
    if meld.kind != RUN or not run_can_extend(meld, end, rules):
        return None
    pos = -1 if end == LOW else len(meld.cards)
    return make_card(meld.suit, (meld.start + pos) % NUM_RANKS)


def extend_run(meld: Meld, card: int, end: str, rules: RuleConfig) -> None:
    """Add ``card`` (the natural ``end_card`` names, or a joker) at ``end`` of a run, in place."""
    if end == HIGH:
        meld.cards.append(card)
        return
    meld.cards.insert(0, card)
    meld.start = (meld.start - 1) % NUM_RANKS if rules.ace_wraparound else meld.start - 1


def take_end_joker(meld: Meld, end: str, rules: RuleConfig) -> None:
    """Take the joker at ``end`` of a run off it, in place (003's joker move)."""
    if meld.cards[-1 if end == HIGH else 0] != JOKER:
        raise ValueError(f"the {end} end of {meld!r} holds no joker")
    if end == HIGH:
        meld.cards.pop()
        return
    meld.cards.pop(0)
    meld.start = (meld.start + 1) % NUM_RANKS if rules.ace_wraparound else meld.start + 1


def joker_positions(meld: Meld) -> list[int]:
    """Indices of the jokers in a meld."""
    return [i for i, c in enumerate(meld.cards) if c == JOKER]


def joker_for(meld: Meld, card: int) -> int | None:
    """Where the joker that natural ``card`` may replace sits: a trio's first joker, the run's
    joker standing for exactly that card; None if there is none."""
    for i in joker_positions(meld):
        if meld.kind == TRIO or meld.represented(i) == card:
            return i
    return None


def end_joker(meld: Meld) -> str | None:
    """The end of a run that holds a joker (the high end first), or None."""
    if meld.kind != RUN:
        return None
    if meld.cards[-1] == JOKER:
        return HIGH
    if meld.cards[0] == JOKER:
        return LOW
    return None


def swap_joker(meld: Meld, card: int) -> None:
    """Natural ``card`` takes the place of the joker standing for it, in place (RULES 1.4)."""
    i = joker_for(meld, card)
    if i is None:
        raise ValueError(f"no joker of {meld!r} stands for {_fmt([card])}")
    meld.cards[i] = card


def fitting_cards(meld: Meld, rules: RuleConfig) -> list[int]:
    """Card types that could be laid off on this meld now (the joker included when it fits)."""
    if meld.kind == TRIO:
        return [*RANK_CARDS[meld.rank], JOKER]
    out = [c for c in (end_card(meld, LOW, rules), end_card(meld, HIGH, rules)) if c is not None]
    if out:
        out.append(JOKER)
    return sorted(set(out))


def swap_targets(meld: Meld) -> list[int]:
    """Natural card types that could replace a joker of this meld (RULES 1.4, swap)."""
    if JOKER not in meld.cards:
        return []
    if meld.kind == TRIO:
        return list(RANK_CARDS[meld.rank])
    return sorted({meld.represented(i) for i in joker_positions(meld)})


def can_fit(meld: Meld, card: int, rules: RuleConfig) -> bool:
    """Whether a card can be laid off on a meld (RULES 1.4; 004's discard restriction uses it)."""
    if card == JOKER:
        return (
            meld.kind == TRIO
            or run_can_extend(meld, LOW, rules)
            or run_can_extend(meld, HIGH, rules)
        )
    if meld.kind == TRIO:
        return rank_of(card) == meld.rank
    return natural_layoff_end(meld, card, rules) is not None


def layoff_options(
    meld: Meld, hand: Sequence[int], rules: RuleConfig, own: bool
) -> list[tuple[int, str | None]]:
    """Every lay-off from ``hand`` (counts) onto ``meld`` (RULES 1.4), as ``(card, end)`` pairs.

    ``end`` is LOW or HIGH for a joker on a run (it goes where the player says) and None
    otherwise: a natural's place is fixed (the trio, the run end its rank extends, or, under
    003's shift and on the player's ``own`` run, the place of the joker standing for it).
    """
    if meld.kind == TRIO:
        out: list[tuple[int, str | None]] = [(c, None) for c in RANK_CARDS[meld.rank] if hand[c]]
        if hand[JOKER]:
            out.append((JOKER, None))
        return out
    low = end_card(meld, LOW, rules)
    high = end_card(meld, HIGH, rules)
    naturals = {c for c in (low, high) if c is not None and hand[c]}
    if own and rules.joker_rule == "shift" and (low is not None or high is not None):
        naturals.update(
            meld.represented(i) for i in joker_positions(meld) if hand[meld.represented(i)]
        )
    out = [(c, None) for c in sorted(naturals)]
    if hand[JOKER]:
        out.extend((JOKER, end) for end, c in ((LOW, low), (HIGH, high)) if c is not None)
    return out


def lay_off(meld: Meld, card: int, end: str | None, rules: RuleConfig) -> None:
    """Lay ``card`` off on ``meld`` in place, as ``layoff_options`` offered it."""
    if meld.kind == TRIO:
        meld.cards.append(card)
        return
    if card == JOKER:
        extend_run(meld, JOKER, end or HIGH, rules)
        return
    natural_end = natural_layoff_end(meld, card, rules)
    if natural_end is None:  # 003's shift: the natural takes the joker's place, the joker moves out
        swap_joker(meld, card)
        extend_run(meld, JOKER, HIGH if run_can_extend(meld, HIGH, rules) else LOW, rules)
        return
    extend_run(meld, card, natural_end, rules)


# ----------------------------------------------------------------------------- contract search
#
# The search maximises the points placed on the table (so minimises the points left in hand)
# over exactly `trios` trios and `runs` runs, with at least one card left in hand.
# Decomposition: runs are chosen first from "windows" (a suit and a span of positions whose two
# end positions hold naturals; gaps and padding up to min_run are jokers); then trios take every
# remaining natural of their ranks and, with at least one trio, every remaining joker. Windows
# are sorted by the points of their naturals, so a branch-and-bound over them stops early.


@lru_cache(maxsize=256)
def _window_shapes(wrap: bool) -> tuple[tuple[int, int], ...]:
    """All (start, length) spans of positions a run may cover."""
    if wrap:
        return tuple((s, n) for s in range(NUM_RANKS) for n in range(1, NUM_RANKS + 1))
    return tuple(
        (s, n) for s in range(NUM_RANKS + 1) for n in range(1, NUM_RANKS + 1) if s + n - 1 <= 13
    )


def _windows(counts: Sequence[int], jokers: int, rules: RuleConfig, pts: Sequence[int]) -> list:
    """Run windows possible with these counts: (value, suit, start, length, pad_low, pad_high)."""
    wrap = rules.ace_wraparound
    min_run = rules.min_run
    out = []
    for suit in range(4):
        base = make_card(suit, 0)
        present = [counts[base + r] > 0 for r in range(NUM_RANKS)]
        if not any(present):
            continue
        for start, n in _window_shapes(wrap):
            if not present[start % 13] or not present[(start + n - 1) % 13]:
                continue
            if wrap and n == NUM_RANKS and start != next(r for r in range(13) if present[r]):
                continue  # the full cycle: one rotation is enough
            gaps = 0
            value = 0
            for i in range(n):
                r = (start + i) % 13
                if present[r]:
                    value += pts[base + r]
                else:
                    gaps += 1
            pad = max(0, min_run - n)
            if gaps + pad > jokers:
                continue
            pad_high = pad_low = 0
            if pad:
                room_high = NUM_RANKS - n if wrap else NUM_RANKS - (start + n - 1)
                pad_high = min(pad, room_high)
                pad_low = pad - pad_high
                if not wrap and pad_low > start:
                    continue
                if n + pad > NUM_RANKS:
                    continue
            out.append((value, suit, start, n, pad_low, pad_high))
    out.sort(key=lambda w: -w[0])
    return out


def _take_run(counts: list[int], window: tuple) -> tuple[list[int], int, int]:
    """Take a window's cards out of counts: (run cards, start, natural count); counts mutated."""
    _, suit, start, n, pad_low, pad_high = window
    cards = [JOKER] * pad_low
    naturals = 0
    for i in range(n):
        c = make_card(suit, (start + i) % NUM_RANKS)
        if counts[c] > 0:
            counts[c] -= 1
            cards.append(c)
            naturals += 1
        else:
            cards.append(JOKER)
    cards.extend([JOKER] * pad_high)
    jokers_used = len(cards) - naturals
    counts[JOKER] -= jokers_used
    return cards, start - pad_low, naturals


class _Search:
    """Branch and bound over run windows, then an exact choice of trio ranks."""

    def __init__(self, counts: Sequence[int], trios: int, runs: int, rules: RuleConfig) -> None:
        self.rules = rules
        self.pts = points_table(rules)
        self.trios = trios
        self.runs = runs
        self.hand_size = sum(counts)
        self.counts = list(counts)
        self.total_points = sum(c * p for c, p in zip(counts, self.pts, strict=False))
        self.best_value = -1
        self.best: list | None = None
        self.windows = _windows(counts, counts[JOKER], rules, self.pts) if runs else []
        # Upper bound of what trios can add: the best `trios` ranks by natural points.
        rank_values = sorted(
            (sum(self.pts[c] * counts[c] for c in RANK_CARDS[r]) for r in range(NUM_RANKS)),
            reverse=True,
        )
        self.trio_bound = sum(rank_values[:trios])
        self.joker_bound = counts[JOKER] * self.pts[JOKER]
        self.first_only = False

    def run(self, first_only: bool = False) -> list | None:
        self.first_only = first_only
        self._runs(self.counts, 0, [], 0)
        return self.best

    def _runs(self, counts: list[int], first: int, chosen: list, value: int) -> bool:
        """Choose the remaining runs; returns True to stop the whole search."""
        depth = len(chosen)
        if depth == self.runs:
            return self._leaf(counts, chosen, value)
        left = self.runs - depth
        windows = self.windows
        for i in range(first, len(windows)):
            w = windows[i]
            if value + left * w[0] + self.trio_bound + self.joker_bound <= self.best_value:
                break  # windows are sorted by value: nothing further can beat the best
            jokers_needed = (
                sum(1 for k in range(w[3]) if counts[make_card(w[1], (w[2] + k) % NUM_RANKS)] == 0)
                + w[4]
                + w[5]
            )
            if jokers_needed > counts[JOKER]:
                continue
            sub = list(counts)
            cards, start, naturals = _take_run(sub, w)
            if naturals == 0:
                continue
            gained = sum(self.pts[c] for c in cards if c != JOKER)
            chosen.append((cards, w[1], start, naturals))
            stop = self._runs(sub, i, chosen, value + gained)
            chosen.pop()
            if stop:
                return True
        return False

    def _leaf(self, counts: list[int], runs: list, run_value: int) -> bool:
        pts = self.pts
        jokers = counts[JOKER]
        if self.trios == 0:
            return self._finish(counts, runs, [], run_value)
        # Trio candidates: ranks with a natural left, or one a run can give up for a joker.
        left_by_rank = [sum(counts[c] for c in RANK_CARDS[r]) for r in range(NUM_RANKS)]
        value_by_rank = [sum(pts[c] * counts[c] for c in RANK_CARDS[r]) for r in range(NUM_RANKS)]
        stealable = [0] * 13
        for cards, _suit, _start, naturals in runs:
            if naturals >= 2:
                for c in cards:
                    if c != JOKER:
                        stealable[rank_of(c)] += 1
        ranks = [r for r in range(13) if left_by_rank[r] + stealable[r] > 0]
        if not ranks:
            return False
        best_combo = None
        best_combo_value = -1
        for combo in combinations_with_replacement(ranks, self.trios):
            cost = 0
            val = 0
            ok = True
            seen = {}
            for r in combo:
                seen[r] = seen.get(r, 0) + 1
            for r, m in seen.items():
                have = left_by_rank[r]
                steal = max(0, m - have)
                if steal > stealable[r]:
                    ok = False
                    break
                cost += steal + max(0, 3 * m - have - steal)
                val += value_by_rank[r]
            if ok and cost <= jokers and val > best_combo_value:
                best_combo_value = val
                best_combo = seen
        if best_combo is None:
            return False
        return self._finish(counts, runs, best_combo, run_value + best_combo_value)

    def _finish(self, counts: list[int], runs: list, trio_ranks, value: int) -> bool:
        """Build the arrangement and keep it if it is the best (the caller keeps a card back)."""
        pts = self.pts
        counts = list(counts)
        run_melds = [list(cards) for cards, _s, _st, _n in runs]
        run_starts = [st for _c, _s, st, _n in runs]
        run_suits = [s for _c, s, _st, _n in runs]
        trio_melds: list[list[int]] = []
        if trio_ranks:
            for r, m in sorted(trio_ranks.items()):
                naturals = []
                for c in RANK_CARDS[r]:
                    naturals.extend([c] * counts[c])
                    counts[c] = 0
                # steal missing naturals from runs, a joker taking their place
                while len(naturals) < m:
                    for cards in run_melds:
                        nat = [k for k, c in enumerate(cards) if c != JOKER]
                        hit = [k for k in nat if rank_of(cards[k]) == r]
                        if hit and len(nat) >= 2:
                            naturals.append(cards[hit[0]])
                            cards[hit[0]] = JOKER
                            counts[JOKER] -= 1
                            break
                    else:  # pragma: no cover - guarded by the caller's stealable count
                        return False
                groups = [naturals[i::m] for i in range(m)]
                for g in groups:
                    need = max(0, 3 - len(g))
                    counts[JOKER] -= need
                    trio_melds.append(g + [JOKER] * need)
            if counts[JOKER] < 0:
                return False
            trio_melds[0].extend([JOKER] * counts[JOKER])
            counts[JOKER] = 0
        else:
            # No trio: spare jokers extend runs, then replace cheaper naturals in runs.
            for idx, cards in enumerate(run_melds):
                while counts[JOKER] > 0 and len(cards) < NUM_RANKS:
                    if self.rules.ace_wraparound or run_starts[idx] + len(cards) - 1 < NUM_RANKS:
                        cards.append(JOKER)
                    elif run_starts[idx] > 0:
                        cards.insert(0, JOKER)
                        run_starts[idx] -= 1
                    else:
                        break
                    counts[JOKER] -= 1
            while counts[JOKER] > 0:
                best = None
                for idx, cards in enumerate(run_melds):
                    nat = [k for k, c in enumerate(cards) if c != JOKER]
                    if len(nat) >= 2:
                        k = min(nat, key=lambda k: pts[cards[k]])
                        if best is None or pts[cards[k]] < pts[run_melds[best[0]][best[1]]]:
                            best = (idx, k)
                if best is None or pts[run_melds[best[0]][best[1]]] >= pts[JOKER]:
                    break
                idx, k = best
                counts[run_melds[idx][k]] += 1
                run_melds[idx][k] = JOKER
                counts[JOKER] -= 1
        leftover_points = sum(c * p for c, p in zip(counts, pts, strict=False))
        placed = self.total_points - leftover_points
        if placed > self.best_value:
            self.best_value = placed
            melds = [(TRIO, m, 0, rank_of(next(c for c in m if c != JOKER))) for m in trio_melds]
            melds += [
                (
                    RUN,
                    cards,
                    run_starts[i] % (13 if self.rules.ace_wraparound else 14),
                    run_suits[i],
                )
                for i, cards in enumerate(run_melds)
            ]
            self.best = melds
        return self.first_only


def _search(
    counts: tuple[int, ...], trios: int, runs: int, rules: RuleConfig, first_only: bool
) -> list | None:
    """``_Search(...).run(first_only)``: the compiled kernel when built
    (``continental_env.kernels``), else the class above; the same arrangement either way."""
    native = kernels.native
    if native is None:
        return _Search(counts, trios, runs, rules).run(first_only)
    return native.contract_search(
        counts, trios, runs, rules.min_run, rules.ace_wraparound, points_table(rules), first_only
    )


# Lay-downs are rare (once per seat and round), so a small cache is enough here.
@lru_cache(maxsize=2_048)
def _best_contract_cached(
    counts: tuple[int, ...], trios: int, runs: int, rules: RuleConfig, first_only: bool
) -> tuple | None:
    result = _search(counts, trios, runs, rules, first_only)
    if result is not None and sum(len(m[1]) for m in result) == sum(counts):
        # Every card placed, but one must stay in hand: the best lay-down keeps some card c and
        # arranges the rest as well as possible, so search each hand minus one card (exact;
        # holding back a card of the best full arrangement can miss a cheaper one).
        pts = points_table(rules)
        result = None
        best_left = -1
        for c in sorted((c for c in range(NUM_TYPES) if counts[c]), key=lambda c: pts[c]):
            if result is not None and pts[c] >= best_left:
                break
            rest = list(counts)
            rest[c] -= 1
            found = _search(tuple(rest), trios, runs, rules, first_only)
            if found is None:
                continue
            placed = sum(pts[x] for m in found for x in m[1])
            left = sum(n * p for n, p in zip(rest, pts, strict=False)) - placed + pts[c]
            if result is None or left < best_left:
                result, best_left = found, left
            if first_only:
                break
    if result is None:
        return None
    return tuple((kind, tuple(cards), start, key) for kind, cards, start, key in result)


def best_contract(
    counts: Sequence[int], trios: int, runs: int, rules: RuleConfig, owner: int = -1
) -> list[Meld] | None:
    """The arrangement of exactly `trios` trios and `runs` runs leaving the fewest points in
    hand (one card at least), as new ``Meld``s of ``owner`` (trios first, runs in sequence
    order); None if none exists.
    """
    found = _best_contract_cached(tuple(counts), trios, runs, rules, False)
    if found is None:
        return None
    return [
        Meld(owner, TRIO, list(cards), rank=key)
        if kind == TRIO
        else Meld(owner, RUN, list(cards), start=start, suit=key)
        for kind, cards, start, key in found
    ]


def has_contract(counts: Sequence[int], trios: int, runs: int, rules: RuleConfig) -> bool:
    """Whether the contract can be laid down from these counts with one card left in hand."""
    key = tuple(counts)
    if sum(key) < 3 * trios + rules.min_run * runs + 1:
        return False
    wrap = rules.ace_wraparound
    if not _contract_exists(key, trios, runs, rules.min_run, wrap, True):
        return False
    if not trios or not runs or _contract_exists(key, trios, runs, rules.min_run, wrap, False):
        return True
    # Only by giving trios naturals taken out of runs: the per-rank count of those may take a
    # run's last natural, so the full search decides (rare: hands of few naturals, many jokers).
    return _best_contract_cached(key, trios, runs, rules, True) is not None


# Bounded: a 53-tuple key and its entry take about 0.7 KiB, so 16,384 entries stay near 11 MiB
# per process (100,000 took about 70 MiB in every training worker) while the hit rate in play
# stays high (a hand changes one card at a time and is asked about again and again).
@lru_cache(maxsize=16_384)
def _contract_exists(
    counts: tuple[int, ...], trios: int, runs: int, min_run: int, wrap: bool, steal: bool
) -> bool:
    """Existence only, on the hot path of every legal-action query of a player not yet down.

    The compiled kernel when built (``continental_env.kernels``), else the reference below.
    """
    native = kernels.native
    if native is not None:
        return native.contract_exists(counts, trios, runs, min_run, wrap, steal)
    return _contract_exists_reference(counts, trios, runs, min_run, wrap, steal)


def _contract_exists_reference(
    counts: tuple[int, ...], trios: int, runs: int, min_run: int, wrap: bool, steal: bool
) -> bool:
    """``_contract_exists`` in pure Python, the readable definition the kernel follows.

    Minimal melds suffice: any run holds a run of exactly ``min_run`` cards with a natural, and
    any trio three cards with a natural, and smaller melds leave more for the rest. So runs are
    chosen among windows of ``min_run`` positions, and trios by the cheapest joker costs.
    """
    jokers = counts[JOKER]
    if runs == 0:
        return _trios_fit(counts, [0] * 13, trios, jokers)
    windows = []
    starts = [ranks[0] for ranks in _min_spans(min_run, wrap)]
    least = max(1, min_run - jokers)  # naturals a window needs: one at least, jokers the rest
    for suit in range(4):
        base = suit * 13
        row = counts[base : base + 13]
        if not any(row):
            continue
        # Naturals per window from prefix sums over the suit's row taken twice (a window's
        # ranks run on from its first rank, modulo 13).
        prefix = list(accumulate([1 if n else 0 for n in row] * 2, initial=0))
        for first, cards in zip(starts, _window_cards(min_run, wrap)[suit], strict=True):
            if prefix[first + min_run] - prefix[first] >= least:
                windows.append(cards)
    if not windows:
        return False
    work = list(counts)
    stealable = [0] * 13
    return _exists_runs(work, windows, 0, runs, trios, stealable, steal)


def run_spans(rules: RuleConfig) -> tuple[tuple[int, ...], ...]:
    """Rank lists of every run of exactly ``min_run`` positions these rules allow."""
    return _min_spans(rules.min_run, rules.ace_wraparound)


@lru_cache(maxsize=16)
def _window_cards(min_run: int, wrap: bool) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Per suit, the card ids of every window of ``_min_spans`` (a run's naturals)."""
    spans = _min_spans(min_run, wrap)
    return tuple(tuple(tuple(suit * 13 + r for r in ranks) for ranks in spans) for suit in range(4))


@lru_cache(maxsize=16)
def _min_spans(min_run: int, wrap: bool) -> tuple[tuple[int, ...], ...]:
    """Rank lists of every run of exactly ``min_run`` positions."""
    starts = range(13) if wrap else range(14 - min_run + 1)
    return tuple(tuple((start + i) % 13 for i in range(min_run)) for start in starts)


def _exists_runs(
    work: list[int],
    windows: list,
    first: int,
    runs: int,
    trios: int,
    stealable: list[int],
    steal: bool = True,
) -> bool:
    if runs == 0:
        return _trios_fit(work, stealable, trios, work[JOKER])
    for i in range(first, len(windows)):
        cards = windows[i]
        present = [c for c in cards if work[c]]
        size = len(cards)
        if not present or size - len(present) > work[JOKER]:
            continue  # no natural, or too few jokers even with every natural (so with any subset)
        # Usually a window takes every natural it covers. With another run still to place, a
        # joker may stand in for a natural that the other run needs (2C JK JK JK + 3C JK JK JK),
        # so smaller subsets are tried too, while the jokers last.
        options = [present]
        if runs >= 2 and len(present) >= 2:
            options += [
                list(sub)
                for k in range(len(present) - 1, 0, -1)
                if size - k <= work[JOKER]
                for sub in combinations(present, k)
            ]
        for taken in options:
            if _try_window(work, windows, i, taken, size, runs, trios, stealable, steal):
                return True
    return False


def _try_window(
    work: list[int],
    windows: list,
    i: int,
    taken: list[int],
    size: int,
    runs: int,
    trios: int,
    stealable: list[int],
    steal: bool,
) -> bool:
    """Place one run on window ``i`` with the naturals ``taken`` and jokers for the rest."""
    need = size - len(taken)
    if not taken or need > work[JOKER]:
        return False
    for c in taken:
        work[c] -= 1
    work[JOKER] -= need
    if steal and len(taken) >= 2:
        for c in taken:
            stealable[c % 13] += 1
    found = _exists_runs(work, windows, i, runs - 1, trios, stealable, steal)
    if steal and len(taken) >= 2:
        for c in taken:
            stealable[c % 13] -= 1
    for c in taken:
        work[c] += 1
    work[JOKER] += need
    return found


def _trios_fit(counts: Sequence[int], stealable: list[int], trios: int, jokers: int) -> bool:
    """Whether `trios` trios fit: the cheapest marginal joker costs, rank by rank, add up."""
    if trios == 0:
        return True
    costs = []
    for r in range(13):
        c, d, h, s = RANK_CARDS[r]
        n = counts[c] + counts[d] + counts[h] + counts[s]
        avail = n + stealable[r]  # a natural a run gives up costs the run one joker
        prev = 0
        for m in range(1, min(avail, trios) + 1):
            total = max(0, 3 * m - n)
            costs.append(total - prev)
            prev = total
    if len(costs) < trios:
        return False
    costs.sort()
    return sum(costs[:trios]) <= jokers


def find_contract(
    hand: Sequence[int], round_number: int, rules: RuleConfig
) -> list[list[int]] | None:
    """The melds the round's contract would be laid down with (fewest points left), or None.

    ``hand`` is a list of card ids; runs come in sequence order, trios first.
    """
    trios, runs = contract_for_round(round_number)
    counts = [0] * NUM_TYPES
    for c in hand:
        counts[c] += 1
    found = best_contract(counts, trios, runs, rules)
    if found is None:
        return None
    return [meld.cards for meld in found]


# ----------------------------------------------------------------------------- lay-down choice
#
# RULES 1.4: lay-down is one action, and the software lays the arrangement that leaves the
# fewest cards, then the fewest points, in hand after the best sequence of lay-offs this turn
# onto the table as it then stands, then the fewest points right after the lay-down.
#
# Every contract meld holds a minimal "core" (a trio of three cards, a run of ``min_run``, each
# with a natural) that lay-offs grow back to it, so the search runs over combinations of cores
# and, for each, computes the best lay-off *closure* exactly, meld family by meld family instead
# of sequence by sequence (the order of lay-offs does not change where they end):
# * a trio (the player's own or the table's) takes every natural of its rank still in hand;
# * runs take chains at their ends, suit by suit: each end may grow by any length whose last card
#   is a natural, jokers bridging the missing cards (a depth-first search over the ends of one
#   suit's runs, naturals first, each option kept if no other beats it on every count);
# * the suits' options are combined under the jokers in hand, and the jokers left over go on a
#   trio (or, with none, into the runs' remaining room);
# * if everything could go, one card must stay: the cheapest card whose absence still lets the
#   rest go.
# What the best closure puts on the player's own melds goes down with the lay-down. Off the
# legal-action path (the mask only needs ``has_contract``): it runs once per lay-down, cached.
# Cores are examined best first (the fewest-points arrangement, then cores by the points of their
# naturals); a hand of many cards (random play builds 30-50) can offer millions of core
# combinations, so at most ``LAYDOWN_BUDGET`` are examined; every hand a sensible player lays
# down has far fewer, and then the choice is exact.

LAYDOWN_BUDGET = 400
LAYDOWN_EXACT_CARDS = 20


def _fewest_points_plan(counts: tuple[int, ...], first: tuple, pts) -> tuple[_LaydownKey, tuple]:
    """Above ``LAYDOWN_EXACT_CARDS``: ``best_contract``'s arrangement, lay-offs not counted."""
    left = list(counts)
    for _kind, cards, _start, _key in first:
        for c in cards:
            left[c] -= 1
    points = sum(n * p for n, p in zip(left, pts, strict=False))
    return (sum(left), points, points), first


_LaydownKey = tuple[int, int, int]  # cards left, points left (after lay-offs), points right after


def best_laydown(
    counts: Sequence[int],
    trios: int,
    runs: int,
    rules: RuleConfig,
    table: Sequence[Meld] = (),
    owner: int = -1,
) -> list[Meld] | None:
    """The contract arrangement a good player lays down (RULES 1.4), or None if there is none.

    ``table`` holds the melds already on the table. The choice minimises the cards, then the
    points, left in hand after the best sequence of lay-offs this turn, then the points right
    after the lay-down; among equals, ``best_contract``'s choice is kept. Returns new ``Meld``s
    of ``owner`` as ``best_contract`` does (trios first, runs in sequence order).
    """
    plan = _laydown_plan(tuple(counts), trios, runs, rules, _table_signature(table))
    if plan is None:
        return None
    return [
        Meld(owner, TRIO, list(cards), rank=key)
        if kind == TRIO
        else Meld(owner, RUN, list(cards), start=start, suit=key)
        for kind, cards, start, key in plan[1]
    ]


def laydown_outcome(
    counts: Sequence[int],
    trios: int,
    runs: int,
    rules: RuleConfig,
    table: Sequence[Meld] = (),
) -> _LaydownKey | None:
    """(cards left, points left) after ``best_laydown`` and the best lay-offs this turn, and the
    points in hand right after the lay-down; None if the contract cannot be laid down."""
    plan = _laydown_plan(tuple(counts), trios, runs, rules, _table_signature(table))
    return None if plan is None else plan[0]


def _table_signature(table: Sequence[Meld]) -> tuple:
    return tuple((m.kind, tuple(m.cards), m.start, m.rank, m.suit) for m in table)


@lru_cache(maxsize=256)
def _laydown_plan(
    counts: tuple[int, ...], trios: int, runs: int, rules: RuleConfig, signature: tuple
) -> tuple[_LaydownKey, tuple] | None:
    first = _best_contract_cached(counts, trios, runs, rules, False)
    if first is None:
        return None
    pts = points_table(rules)
    if sum(counts) > LAYDOWN_EXACT_CARDS:
        return _fewest_points_plan(counts, first, pts)
    table = [
        Meld(-1, kind, list(cards), start, rank, suit)
        for kind, cards, start, rank, suit in signature
    ]
    floor = min(pts[c] for c in range(NUM_TYPES) if counts[c])
    best_key: _LaydownKey | None = None
    best_own: list[Meld] = []
    candidates = _core_candidates(counts, trios, runs, rules, first, table, pts)
    for examined, (bound, arrangement) in enumerate(candidates):
        if examined >= LAYDOWN_BUDGET:
            break
        if best_key is not None and bound > best_key[:2]:
            continue
        own = _as_melds(arrangement)
        rest = _rest_after(counts, own)
        key, final_own = _closure(rest, table, own, rules, pts)
        if best_key is None or key < best_key:
            best_key, best_own = key, final_own
            if key == (1, floor, floor):
                break  # one cheapest card kept, everything else on the player's own melds
    assert best_key is not None
    trio_melds = [m for m in best_own if m.kind == TRIO]
    run_melds = [m for m in best_own if m.kind == RUN]
    arrangement = tuple((TRIO, tuple(m.cards), 0, m.rank) for m in trio_melds) + tuple(
        (RUN, tuple(m.cards), m.start, m.suit) for m in run_melds
    )
    return best_key, arrangement


def _as_melds(arrangement: Sequence) -> list[Meld]:
    """Melds of owner -1 from (kind, cards, start, key) rows; a list of Melds passes through."""
    return [
        m
        if isinstance(m, Meld)
        else Meld(-1, TRIO, list(m[1]), rank=m[3])
        if m[0] == TRIO
        else Meld(-1, RUN, list(m[1]), start=m[2], suit=m[3])
        for m in arrangement
    ]


def _rest_after(counts: Sequence[int], own: Sequence[Meld]) -> list[int]:
    rest = list(counts)
    for meld in own:
        for c in meld.cards:
            rest[c] -= 1
    return rest


def _core_candidates(
    counts: tuple[int, ...],
    trios: int,
    runs: int,
    rules: RuleConfig,
    first: tuple,
    table: Sequence[Meld],
    pts: Sequence[int],
) -> Iterator[tuple[tuple[int, int], Sequence]]:
    """(``_stuck_bound``, arrangement) of every core combination in ``_core_combinations``'
    order. The compiled kernel (``continental_env.kernels``) enumerates them, bounds included,
    as (kind, cards, start, key) rows; the reference yields lists of Melds."""
    native = kernels.native
    if native is None:
        for own in _core_combinations(counts, trios, runs, rules, first):
            yield _stuck_bound(_rest_after(counts, own), table, own, pts), own
        return
    own = _as_melds(first)
    yield _stuck_bound(_rest_after(counts, own), table, own, pts), first
    table_ranks = sum({1 << m.rank for m in table if m.kind == TRIO})
    table_suits = sum({1 << m.suit for m in table if m.kind == RUN})
    rows = native.laydown_cores(
        counts, trios, runs, rules.min_run, rules.ace_wraparound, pts, table_ranks,
        table_suits, LAYDOWN_BUDGET - 1,
    )  # fmt: skip
    for stuck, stuck_points, arrangement in rows:
        yield (stuck, stuck_points), arrangement


def _core_combinations(
    counts: tuple[int, ...], trios: int, runs: int, rules: RuleConfig, first: tuple
) -> Iterator[list[Meld]]:
    """``best_contract``'s arrangement first (so ties keep it), then combinations of cores.

    Trio cores: 1-3 naturals of a rank (each multiset of suits) and jokers up to three. Run cores:
    a span of ``min_run`` positions of one suit, filled with the naturals still in hand and jokers
    for the rest (a joker instead of a natural in hand is never better: the natural would then
    have to go elsewhere). Options with more and costlier naturals come first.
    """
    yield [
        Meld(-1, TRIO, list(cards), rank=key)
        if kind == TRIO
        else Meld(-1, RUN, list(cards), start=start, suit=key)
        for kind, cards, start, key in first
    ]
    pts = points_table(rules)
    jokers = counts[JOKER]
    trio_options: list[tuple[int, ...]] = []
    for r in range(NUM_RANKS):
        naturals = [s * 13 + r for s in range(4) for _ in range(min(counts[s * 13 + r], 3))]
        for k in (3, 2, 1):
            if 3 - k <= jokers:
                for combo in sorted(set(combinations(naturals, k))):
                    trio_options.append(combo + (JOKER,) * (3 - k))
    trio_options.sort(key=lambda cards: -sum(pts[c] for c in cards if c != JOKER))
    n = rules.min_run
    starts = range(NUM_RANKS) if rules.ace_wraparound else range(NUM_RANKS + 2 - n)
    spans = [(suit, start) for suit in range(4) for start in starts]
    spans.sort(
        key=lambda sp: (
            -sum(
                pts[sp[0] * 13 + (sp[1] + i) % NUM_RANKS]
                for i in range(n)
                if counts[sp[0] * 13 + (sp[1] + i) % NUM_RANKS]
            )
        )
    )
    left = list(counts)

    def take(cards: Sequence[int]) -> bool:
        ok = True
        for c in cards:
            left[c] -= 1
            ok = ok and left[c] >= 0
        return ok

    def give(cards: Sequence[int]) -> None:
        for c in cards:
            left[c] += 1

    def choose_runs(first_index: int, chosen: list[Meld], to_place: int) -> Iterator[list[Meld]]:
        if not to_place:
            if sum(left) >= 1:
                yield list(chosen)
            return
        for i in range(first_index, len(spans)):
            suit, start = spans[i]
            cards = []
            for k in range(n):
                c = suit * 13 + (start + k) % NUM_RANKS
                cards.append(c if left[c] > cards.count(c) else JOKER)
            if all(c == JOKER for c in cards):
                continue
            if take(cards):
                chosen.append(Meld(-1, RUN, cards, start=start, suit=suit))
                yield from choose_runs(i, chosen, to_place - 1)
                chosen.pop()
            give(cards)

    def choose_trios(first_index: int, chosen: list[Meld]) -> Iterator[list[Meld]]:
        if len(chosen) == trios:
            yield from choose_runs(0, chosen, runs)
            return
        for i in range(first_index, len(trio_options)):
            cards = trio_options[i]
            if take(cards):
                chosen.append(Meld(-1, TRIO, list(cards), rank=rank_of(cards[0])))
                yield from choose_trios(i, chosen)
                chosen.pop()
            give(cards)

    yield from choose_trios(0, [])


def _stuck_bound(
    rest: list[int], table: Sequence[Meld], own: Sequence[Meld], pts
) -> tuple[int, int]:
    """A lower bound of (cards, points) left: naturals no meld could ever take stay in hand."""
    trio_ranks = {m.rank for m in (*table, *own) if m.kind == TRIO}
    run_suits = {m.suit for m in (*table, *own) if m.kind == RUN}
    stuck = stuck_points = 0
    for c in range(JOKER):
        if rest[c] and rank_of(c) not in trio_ranks and suit_of(c) not in run_suits:
            stuck += rest[c]
            stuck_points += rest[c] * pts[c]
    return (stuck, stuck_points) if stuck else (1, min(pts[c] for c in range(NUM_TYPES) if rest[c]))


def _closure(
    rest: list[int],
    table: Sequence[Meld],
    own: Sequence[Meld],
    rules: RuleConfig,
    pts,
    keep_one: bool = True,
) -> tuple[_LaydownKey, list[Meld]]:
    """The best lay-offs from ``rest`` onto ``table`` and the player's ``own`` new melds: its key
    (cards left, points left, points right after the lay-down) and the own melds as it leaves
    them (what goes down with the lay-down)."""
    melds = [m.copy() for m in table] + [m.copy() for m in own]
    is_own = [False] * len(table) + [True] * len(own)
    trio_own = {m.rank for m in own if m.kind == TRIO}
    trio_any = trio_own | {m.rank for m in table if m.kind == TRIO}
    jokers = rest[JOKER]
    size = sum(rest)
    points = sum(n * p for n, p in zip(rest, pts, strict=False))
    per_suit = [
        _suit_layoffs(suit, rest, melds, is_own, trio_own, trio_any, jokers, rules, pts)
        for suit in range(4)
    ]
    best: tuple | None = None
    for combo in product(*per_suit):
        used = sum(o[0] for o in combo)
        if used > jokers:
            continue
        spare = jokers - used
        room = sum(o[4] for o in combo)
        own_room = sum(o[5] for o in combo)
        if trio_any:
            spare_placed = spare
            spare_own = spare if trio_own else min(spare, own_room)
        else:
            spare_placed = min(spare, room)
            spare_own = min(spare, own_room)
        placed = sum(o[1] for o in combo) + spare_placed
        placed_points = sum(o[2] for o in combo) + spare_placed * pts[JOKER]
        own_points = sum(o[3] for o in combo) + spare_own * pts[JOKER]
        value = (placed, placed_points, own_points)
        if best is None or value > best[0]:
            best = (value, combo, spare_own)
    assert best is not None  # every suit offers at least the empty option
    (placed, placed_points, own_points), combo, spare_own = best
    if placed == size and keep_one:
        # Everything could go, but a lay-off must leave a card: keep the cheapest card whose
        # absence still lets the rest go (the last lay-off of any full sequence is such a card).
        for c in sorted((c for c in range(NUM_TYPES) if rest[c]), key=lambda c: pts[c]):
            rest[c] -= 1
            key, final_own = _closure(rest, table, own, rules, pts, keep_one=False)
            rest[c] += 1
            if key[0] == 0:
                return (1, pts[c], key[2] + pts[c]), final_own
        raise AssertionError("a full lay-off sequence always has a last card")  # pragma: no cover
    key = (size - placed, points - placed_points, points - own_points)
    return key, _own_result(rest, melds, is_own, combo, spare_own, trio_own, rules)


def _run_ends(melds: Sequence[Meld], suit: int) -> list[tuple[int, str]]:
    return [
        (i, end)
        for i, m in enumerate(melds)
        if m.kind == RUN and m.suit == suit
        for end in (LOW, HIGH)
    ]


def _suit_layoffs(
    suit: int,
    rest: list[int],
    melds: list[Meld],
    is_own: list[bool],
    trio_own: set[int],
    trio_any: set[int],
    jokers: int,
    rules: RuleConfig,
    pts,
) -> list[tuple]:
    """One suit's lay-off options: (jokers used, cards placed, their points, their points on own
    melds, room left in this suit's runs, room left in own runs, chain length per run end),
    keeping only options no other beats on every count for the same jokers."""
    base = suit * 13
    row = rest[base : base + 13]
    ends = _run_ends(melds, suit)
    runs = sorted({i for i, _ in ends})
    found: list[tuple] = []
    lengths: list[int] = []

    def leaf(used: int, placed: int, placed_points: int, own_points: int) -> None:
        for r in trio_any:
            if row[r]:
                p = row[r] * pts[base + r]
                placed += row[r]
                placed_points += p
                if r in trio_own:
                    own_points += p
        room = sum(NUM_RANKS - len(melds[i].cards) for i in runs)
        own_room = sum(NUM_RANKS - len(melds[i].cards) for i in runs if is_own[i])
        found.append((used, placed, placed_points, own_points, room, own_room, tuple(lengths)))

    def visit(k: int, used: int, placed: int, placed_points: int, own_points: int) -> None:
        if k == len(ends):
            leaf(used, placed, placed_points, own_points)
            return
        i, end = ends[k]
        meld = melds[i]
        saved = (list(meld.cards), meld.start)
        lengths.append(0)
        visit(k + 1, used, placed, placed_points, own_points)
        taken: list[int] = []
        while True:
            c = end_card(meld, end, rules)
            if c is None:
                break
            if row[c - base]:
                row[c - base] -= 1
                taken.append(c)
                extend_run(meld, c, end, rules)
            elif used < jokers:
                used += 1
                taken.append(JOKER)
                extend_run(meld, JOKER, end, rules)
            else:
                break
            placed += 1
            placed_points += pts[taken[-1]]
            if is_own[i]:
                own_points += pts[taken[-1]]
            if taken[-1] != JOKER:
                lengths[-1] = len(taken)
                visit(k + 1, used, placed, placed_points, own_points)
        lengths.pop()
        for c in taken:
            if c != JOKER:
                row[c - base] += 1
        meld.cards, meld.start = saved

    visit(0, 0, 0, 0, 0)
    kept = []
    for option in found:
        if not any(
            other[0] <= option[0]
            and all(other[f] >= option[f] for f in range(1, 6))
            and other[:6] != option[:6]
            for other in found
        ) and all(o[:6] != option[:6] for o in kept):
            kept.append(option)
    return kept


def _own_result(
    rest: list[int],
    melds: list[Meld],
    is_own: list[bool],
    combo: Sequence[tuple],
    spare_own: int,
    trio_own: set[int],
    rules: RuleConfig,
) -> list[Meld]:
    """The player's own melds after the chosen lay-offs that go on them (replayed naturals
    first, as ``_suit_layoffs`` counted them), spare jokers included."""
    melds = [m.copy() for m in melds]
    hand = list(rest)
    budget = sum(o[0] for o in combo)
    for suit, option in enumerate(combo):
        for (i, end), length in zip(_run_ends(melds, suit), option[6], strict=True):
            meld = melds[i]
            for _ in range(length):
                c = end_card(meld, end, rules)
                assert c is not None
                if hand[c]:
                    hand[c] -= 1
                else:
                    budget -= 1
                    hand[JOKER] -= 1
                    c = JOKER
                extend_run(meld, c, end, rules)
    assert budget == 0
    own = [m for m, mine in zip(melds, is_own, strict=True) if mine]
    for meld in own:
        if meld.kind == TRIO and meld.rank in trio_own:
            for s in range(4):
                c = s * 13 + meld.rank
                meld.cards.extend([c] * hand[c])
                hand[c] = 0
    for _ in range(spare_own):
        trios = [m for m in own if m.kind == TRIO]
        if trios:  # the trio with the fewest naturals takes it (4C 4D JK JK beside 5C 5D 5H)
            target = min(trios, key=lambda m: sum(c != JOKER for c in m.cards))
            target.cards.append(JOKER)
            continue
        target = next(m for m in own if m.kind == RUN and len(m.cards) < NUM_RANKS)
        end = HIGH if run_can_extend(target, HIGH, rules) else LOW
        extend_run(target, JOKER, end, rules)
    return own


# ============================================================================= fifteen-card game
#
# Sequences and going-out shapes of the fifteen-card game (RULES.md Part 2): 3-5 cards of one suit
# in consecutive rank, aces low or high but never around the corner, jokers wild with a natural
# in every sequence. They are this module's runs under ``SEQUENCE_RULES`` (min_run 3, no
# wraparound), so validity is ``run_layout`` / ``is_valid_meld`` and the spans are
# ``_min_spans``; only the exact-cover search over the three going-out shapes is new here.

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
    return _min_spans(length, False)


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
    rows = _rows(counts)
    options = [_suit_options(r, jokers) if any(r) else None for r in rows]
    need = [0 if o is None else _min_jokers(o) for o in options]
    stuck = [suit for suit in range(4) if need[suit] > jokers]
    if len(stuck) > 1:
        return []  # one discard changes one suit
    total_need = sum(need)
    out = []
    for suit in stuck or range(4):
        row = rows[suit]
        if stuck == [] and total_need - need[suit] > jokers:
            continue
        for rank in range(NUM_RANKS):
            if not row[rank]:
                continue
            fewer = list(row)
            fewer[rank] -= 1
            trial = [o for k, o in enumerate(options) if k != suit and o is not None]
            if any(fewer):
                trial.append(_suit_options(tuple(fewer), jokers))
            if _combine(trial, jokers):
                out.append(suit * 13 + rank)
    if jokers and not stuck and total_need < jokers:  # the discard is a joker
        fewer_jokers = [_suit_options(r, jokers - 1) for r in rows if any(r)]
        if _combine(fewer_jokers, jokers - 1):
            out.append(JOKER)
    return out


# ============================================================================= knock game
#
# Lays and deadwood of the knock game (RULES.md Part 3). A lay is 3+ cards of one rank (this
# module's trios: ``trio_rank``) or 3+ cards of one suit in consecutive rank, aces low or high but
# never around the corner (this module's runs under ``LAY_RULES``: min_run 3, no wraparound);
# jokers wild, a natural in every lay. Card values are ``points_table`` of ``LAY_RULES`` (aces
# 15, jokers 20) or of ``KNOCKER_RULES`` (aces 1, for the player who knocks). New here: the exact
# deadwood solver and the announcement checks (rummy, color, continental).

from collections.abc import Callable  # noqa: E402  (the knock section's own import)

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
        from ``work``: (the lay's cards, room it leaves for spare jokers)."""
        out: list[tuple[tuple[int, ...], int]] = []
        rank, suit = rank_of(c), suit_of(c)
        same = [s * 13 + rank for s in range(4) if work[s * 13 + rank]]
        for picks in _product_ranges([work[card] for card in same]):
            taken = [card for card, n in zip(same, picks, strict=True) for _ in range(n)]
            need = max(0, 2 - len(taken))
            if need <= work[JOKER]:
                out.append(((c, *taken, *([JOKER] * need)), self.jokers))
        base = suit * 13
        jokers = work[JOKER]
        # Runs by their span of positions (13 is the ace high): of 3 positions, any holding c;
        # longer, only spans with naturals at both ends (end jokers could as well be spare).
        for vc in (rank, NUM_RANKS) if rank == 0 else (rank,):
            lows = [v for v in range(max(0, vc - 12), vc) if work[base + v % NUM_RANKS]]
            highs = [v for v in range(vc + 1, min(NUM_RANKS, vc + 12) + 1) if work[base + v % 13]]
            spans = {(lo, lo + 2) for lo in range(max(0, vc - 2), min(vc, NUM_RANKS - 2) + 1)}
            spans |= {
                (lo, hi)
                for lo in [*lows, vc]
                for hi in [vc, *highs]
                if 3 < hi - lo + 1 <= NUM_RANKS
            }
            for lo, hi in sorted(spans):
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


def _isolated_naturals(counts: Sequence[int]) -> list[int]:
    """Naturals with no other natural of their rank and no natural of their suit one or two ranks
    away (the ace next to the king too): each is in a lay only with jokers beside it."""
    out = []
    for c in range(JOKER):
        if counts[c] != 1:
            continue
        rank = c % NUM_RANKS
        base = c - rank
        if counts[rank] + counts[13 + rank] + counts[26 + rank] + counts[39 + rank] > 1:
            continue
        if rank == 0:
            near = counts[base + 1] or counts[base + 2] or counts[base + 11] or counts[base + 12]
        else:
            near = (
                counts[base + rank - 1]
                or (rank >= 2 and counts[base + rank - 2])
                or (rank <= 11 and counts[base + rank + 1])
                or (rank <= 10 and counts[base + rank + 2])
                or (rank >= 11 and counts[base])
            )
        if not near:
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
