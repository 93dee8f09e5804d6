"""The one meld validator: meld validity, lay-off and joker-swap targets, contract search.

Pure functions over card ids and count vectors (``cards.py``); no game state, no gymnasium.
The engine, the action masks and the bots all call these.

Runs are stored by their *start*: position ``i`` of a run starting at ``start`` stands for rank
``(start + i) % 13`` (rank 0 = ace). With ``ace_wraparound`` the start is 0..12 and the run is
cyclic; without it the start is 0..13 - len, and position value 13 is the ace played high, so a
run can never hold the ace at both ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import accumulate, combinations, combinations_with_replacement

from continental_env.cards import JOKER, NUM_RANKS, NUM_TYPES, rank_of, suit_of
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
        return self.suit * 13 + (self.start + index) % NUM_RANKS

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
                out.append(suit * 13 + r if r in rank_set else JOKER)
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
    return meld.suit * 13 + (meld.start + pos) % NUM_RANKS


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


def fitting_cards(meld: Meld, rules: RuleConfig) -> list[int]:
    """Card types that could be laid off on this meld now (the joker included when it fits)."""
    if meld.kind == TRIO:
        return [s * 13 + meld.rank for s in range(4)] + [JOKER]
    out = [c for c in (end_card(meld, LOW, rules), end_card(meld, HIGH, rules)) if c is not None]
    if out:
        out.append(JOKER)
    return sorted(set(out))


def swap_targets(meld: Meld) -> list[int]:
    """Natural card types that could replace a joker of this meld (RULES 1.4, swap)."""
    if JOKER not in meld.cards:
        return []
    if meld.kind == TRIO:
        return [s * 13 + meld.rank for s in range(4)]
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
        out: list[tuple[int, str | None]] = [
            (s * 13 + meld.rank, None) for s in range(4) if hand[s * 13 + meld.rank]
        ]
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
        i = next(k for k in joker_positions(meld) if meld.represented(k) == card)
        meld.cards[i] = card
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
        base = suit * 13
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
        c = suit * 13 + (start + i) % 13
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
            (sum(self.pts[s * 13 + r] * counts[s * 13 + r] for s in range(4)) for r in range(13)),
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
                sum(1 for k in range(w[3]) if counts[w[1] * 13 + (w[2] + k) % 13] == 0)
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
        left_by_rank = [sum(counts[s * 13 + r] for s in range(4)) for r in range(13)]
        value_by_rank = [
            sum(pts[s * 13 + r] * counts[s * 13 + r] for s in range(4)) for r in range(13)
        ]
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
                for s in range(4):
                    c = s * 13 + r
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


# Lay-downs are rare (once per seat and round), so a small cache is enough here.
@lru_cache(maxsize=2_048)
def _best_contract_cached(
    counts: tuple[int, ...], trios: int, runs: int, rules: RuleConfig, first_only: bool
) -> tuple | None:
    result = _Search(counts, trios, runs, rules).run(first_only)
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
            found = _Search(rest, trios, runs, rules).run(first_only)
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
    counts: Sequence[int], trios: int, runs: int, rules: RuleConfig
) -> list[tuple[str, list[int], int, int]] | None:
    """The arrangement of exactly `trios` trios and `runs` runs leaving the fewest points in
    hand (one card at least), as (kind, cards, start, rank-or-suit) tuples; None if none exists.
    """
    found = _best_contract_cached(tuple(counts), trios, runs, rules, False)
    if found is None:
        return None
    return [(kind, list(cards), start, key) for kind, cards, start, key in found]


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
        n = counts[r] + counts[13 + r] + counts[26 + r] + counts[39 + r]
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
    return [cards for _kind, cards, _start, _key in found]


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
