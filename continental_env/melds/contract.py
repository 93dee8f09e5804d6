"""Contract search (RULES 1.3-1.4): can a hand lay its round's contract down, and how.

``ContractSearch`` is the one arrangement search: a branch and bound over run windows, then an
exact choice of trio ranks, maximising the points placed. ``best_arrangement`` (cached rows, one
card kept in hand), ``best_contract`` and ``find_contract`` read it; run with ``first_only`` it
settles the rare existence questions ``contract_exists`` leaves open (``has_contract``), and the
lay-down choice (``melds.laydown``) starts from its arrangement.

**Why other searches stay beside it.** The contract game had five searches over contract
arrangements. Each one kept answers a question the one search does not, or the same question
much faster where it is asked most. On all 10,280 hands a seat not yet down held in the
recorded games, the three that can answer "can the contract go down now?" agree
(``has_contract`` through ``contract_exists``, ``ContractSearch(first_only)``, a distance of 0);
``tests/test_melds_package.py`` checks the same on random hands, kernels on and off.

| search | question | why it stays |
|---|---|---|
| ``ContractSearch`` (here) | the arrangement leaving the fewest points | the one search |
| ``contract_exists`` (``melds.exists``) | can the contract go down (minimal melds, no arrangement) | asked on every legal-action query of a seat not yet down: 5.8 us a call against 12.9 us for ``ContractSearch(first_only)`` with the kernels, 65 us against 309 us in Python |
| ``hand_analysis`` (``melds.distance``) | how many cards away, which card types bring it nearer | another question; as an existence check it costs 11.3 us (kernels) and 303 us (Python); its first best plan feeds the v1 observation, pinned by the observation digests |
| ``laydown_plan`` (``melds.laydown``) | which arrangement to lay down, counting this turn's lay-offs | another objective, built on this search's arrangement: it lays down another arrangement than ``best_contract``'s in 171 of 3,689 recorded lay-downs |
| ``agents.strong.make_plan`` | the bot's cheapest plan, each missing card weighted by the unseen copies | frozen as ``strong@v1``: the same seeds give the same decisions (``tests/test_versions.py``) |

Figures: ``python scripts/bench_contract_searches.py --games 2 --random-games 2 --out
results/melds_contract_searches.json`` (CPU time per call, caches emptied; ``kernels``: the
compiled ports, ``python``: ``CONTINENTAL_KERNELS=0``).

``ContractSearch`` has a compiled port (``continental_env/_kernels.c``, ``continental_env.kernels``)
that returns exactly what the Python here returns (``tests/test_kernels*.py``):
``contract_search`` picks the kernel when it is built; ``ContractSearch`` is the readable
definition.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import combinations_with_replacement

from continental_env import kernels
from continental_env.cards import JOKER, NUM_RANKS, NUM_TYPES, RANK_CARDS, make_card, rank_of
from continental_env.melds.core import RUN, TRIO, Meld, meld_from_row
from continental_env.melds.exists import contract_exists
from continental_env.rules import RuleConfig, contract_for_round, points_table

__all__ = [
    "ContractSearch",
    "best_arrangement",
    "best_contract",
    "contract_search",
    "find_contract",
    "has_contract",
]

# ContractSearch maximises the points placed on the table (so minimises the points left in hand)
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
    out = []
    for suit in range(4):
        base = make_card(suit, 0)
        present = [counts[base + r] > 0 for r in range(NUM_RANKS)]
        if any(present):
            out.extend(_suit_windows(suit, present, jokers, rules, pts))
    out.sort(key=lambda w: -w[0])
    return out


def _suit_windows(
    suit: int, present: list[bool], jokers: int, rules: RuleConfig, pts: Sequence[int]
) -> Iterator[tuple[int, int, int, int, int, int]]:
    """``_windows`` of one suit whose naturals are ``present`` (by rank), in shape order."""
    wrap = rules.ace_wraparound
    base = make_card(suit, 0)
    for start, n in _window_shapes(wrap):
        if not present[start % 13] or not present[(start + n - 1) % 13]:
            continue
        if wrap and n == NUM_RANKS and start != present.index(True):
            continue  # the full cycle: one rotation is enough
        gaps = 0
        value = 0
        for i in range(n):
            r = (start + i) % 13
            if present[r]:
                value += pts[base + r]
            else:
                gaps += 1
        pad = max(0, rules.min_run - n)
        if gaps + pad > jokers:
            continue
        padding = _padding(start, n, pad, wrap)
        if padding is not None:
            yield (value, suit, start, n, *padding)


def _padding(start: int, n: int, pad: int, wrap: bool) -> tuple[int, int] | None:
    """(pad_low, pad_high): the jokers that lengthen a window of ``n`` positions to
    ``min_run``, at the high end first; None where the run would not fit."""
    if not pad:
        return 0, 0
    room_high = NUM_RANKS - n if wrap else NUM_RANKS - (start + n - 1)
    pad_high = min(pad, room_high)
    pad_low = pad - pad_high
    if (not wrap and pad_low > start) or n + pad > NUM_RANKS:
        return None
    return pad_low, pad_high


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


def _best_trio_combo(
    ranks: list[int],
    trios: int,
    left_by_rank: list[int],
    value_by_rank: list[int],
    stealable: list[int],
    jokers: int,
) -> tuple[dict[int, int] | None, int]:
    """The trio ranks (rank -> trios of it) adding the most points within ``jokers``, and those
    points; (None, -1) if none fits. A trio may take a natural a run gives up for a joker."""
    best_combo = None
    best_combo_value = -1
    for combo in combinations_with_replacement(ranks, trios):
        seen: dict[int, int] = {}
        for r in combo:
            seen[r] = seen.get(r, 0) + 1
        cost = val = 0
        for r, m in seen.items():
            have = left_by_rank[r]
            steal = max(0, m - have)
            if steal > stealable[r]:
                break
            cost += steal + max(0, 3 * m - have - steal)
            val += value_by_rank[r]
        else:
            if cost <= jokers and val > best_combo_value:
                best_combo_value = val
                best_combo = seen
    return best_combo, best_combo_value


def _trio_naturals(
    counts: list[int], run_melds: list[list[int]], r: int, m: int
) -> list[int] | None:
    """Every natural of rank ``r`` left in hand (taken out of ``counts``) and, while fewer than
    ``m``, naturals stolen from runs of 2+ naturals, a joker taking their place; None if short."""
    naturals = []
    for c in RANK_CARDS[r]:
        naturals.extend([c] * counts[c])
        counts[c] = 0
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
            return None
    return naturals


def _build_trios(
    counts: list[int], run_melds: list[list[int]], trio_ranks: dict[int, int]
) -> list[list[int]] | None:
    """The trios of ``trio_ranks``, naturals dealt round-robin and jokers making up 3, every
    spare joker on the first; None if the jokers run short (``counts`` and runs mutated)."""
    trio_melds: list[list[int]] = []
    for r, m in sorted(trio_ranks.items()):
        naturals = _trio_naturals(counts, run_melds, r, m)
        if naturals is None:  # pragma: no cover - guarded by the caller's stealable count
            return None
        for g in (naturals[i::m] for i in range(m)):
            need = max(0, 3 - len(g))
            counts[JOKER] -= need
            trio_melds.append(g + [JOKER] * need)
    if counts[JOKER] < 0:
        return None
    trio_melds[0].extend([JOKER] * counts[JOKER])
    counts[JOKER] = 0
    return trio_melds


def _pad_runs(
    counts: list[int], run_melds: list[list[int]], run_starts: list[int], wrap: bool
) -> None:
    """No trio: spare jokers lengthen the runs in turn, at the high end while it has room."""
    for idx, cards in enumerate(run_melds):
        while counts[JOKER] > 0 and len(cards) < NUM_RANKS:
            if wrap or run_starts[idx] + len(cards) - 1 < NUM_RANKS:
                cards.append(JOKER)
            elif run_starts[idx] > 0:
                cards.insert(0, JOKER)
                run_starts[idx] -= 1
            else:
                break
            counts[JOKER] -= 1


def _cheapest_run_natural(run_melds: list[list[int]], pts: Sequence[int]) -> tuple | None:
    """(run, position) of the cheapest natural a run of 2+ naturals could give up, or None."""
    best = None
    for idx, cards in enumerate(run_melds):
        nat = [k for k, c in enumerate(cards) if c != JOKER]
        if len(nat) >= 2:
            k = min(nat, key=lambda k: pts[cards[k]])
            if best is None or pts[cards[k]] < pts[run_melds[best[0]][best[1]]]:
                best = (idx, k)
    return best


def _swap_cheap_naturals(counts: list[int], run_melds: list[list[int]], pts: Sequence[int]) -> None:
    """No trio and the runs full: spare jokers replace the runs' naturals cheaper than a joker."""
    while counts[JOKER] > 0:
        best = _cheapest_run_natural(run_melds, pts)
        if best is None or pts[run_melds[best[0]][best[1]]] >= pts[JOKER]:
            break
        idx, k = best
        counts[run_melds[idx][k]] += 1
        run_melds[idx][k] = JOKER
        counts[JOKER] -= 1


class ContractSearch:
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
        """The best arrangement as (kind, cards, start, key) rows, or None; with
        ``first_only`` the first arrangement found (existence)."""
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
        if self.trios == 0:
            return self._finish(counts, runs, {}, run_value)
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
        combo, combo_value = _best_trio_combo(
            ranks, self.trios, left_by_rank, value_by_rank, stealable, counts[JOKER]
        )
        if combo is None:
            return False
        return self._finish(counts, runs, combo, run_value + combo_value)

    def _finish(
        self, counts: list[int], runs: list, trio_ranks: dict[int, int], value: int
    ) -> bool:
        """Build the arrangement and keep it if it is the best (the caller keeps a card back)."""
        pts = self.pts
        wrap = self.rules.ace_wraparound
        counts = list(counts)
        run_melds = [list(cards) for cards, _s, _st, _n in runs]
        run_starts = [st for _c, _s, st, _n in runs]
        run_suits = [s for _c, s, _st, _n in runs]
        trio_melds: list[list[int]] = []
        if trio_ranks:
            built = _build_trios(counts, run_melds, trio_ranks)
            if built is None:
                return False
            trio_melds = built
        else:
            # No trio: spare jokers extend runs, then replace cheaper naturals in runs.
            _pad_runs(counts, run_melds, run_starts, wrap)
            _swap_cheap_naturals(counts, run_melds, pts)
        leftover_points = sum(c * p for c, p in zip(counts, pts, strict=False))
        placed = self.total_points - leftover_points
        if placed > self.best_value:
            self.best_value = placed
            melds = [(TRIO, m, 0, rank_of(next(c for c in m if c != JOKER))) for m in trio_melds]
            melds += [
                (RUN, cards, run_starts[i] % (13 if wrap else 14), run_suits[i])
                for i, cards in enumerate(run_melds)
            ]
            self.best = melds
        return self.first_only


def contract_search(
    counts: tuple[int, ...], trios: int, runs: int, rules: RuleConfig, first_only: bool
) -> list | None:
    """``ContractSearch(...).run(first_only)``: the compiled kernel when built
    (``continental_env.kernels``), else the class above; the same arrangement either way."""
    native = kernels.native
    if native is None:
        return ContractSearch(counts, trios, runs, rules).run(first_only)
    return native.contract_search(
        counts, trios, runs, rules.min_run, rules.ace_wraparound, points_table(rules), first_only
    )


# Lay-downs are rare (once per seat and round), so a small cache is enough here.
@lru_cache(maxsize=2_048)
def best_arrangement(
    counts: tuple[int, ...], trios: int, runs: int, rules: RuleConfig, first_only: bool
) -> tuple | None:
    """``contract_search`` with one card kept in hand, as a tuple of (kind, cards, start, key)
    rows (cached); None if the contract cannot be laid down."""
    result = contract_search(counts, trios, runs, rules, first_only)
    if result is not None and sum(len(m[1]) for m in result) == sum(counts):
        result = _keep_one_back(counts, trios, runs, rules, first_only)
    if result is None:
        return None
    return tuple((kind, tuple(cards), start, key) for kind, cards, start, key in result)


def _keep_one_back(
    counts: tuple[int, ...], trios: int, runs: int, rules: RuleConfig, first_only: bool
) -> list | None:
    """Every card placed, but one must stay in hand: the best lay-down keeps some card c and
    arranges the rest as well as possible, so search each hand minus one card (exact; holding
    back a card of the best full arrangement can miss a cheaper one). Cheapest cards first."""
    pts = points_table(rules)
    result = None
    best_left = -1
    for c in sorted((c for c in range(NUM_TYPES) if counts[c]), key=lambda c: pts[c]):
        if result is not None and pts[c] >= best_left:
            break
        rest = list(counts)
        rest[c] -= 1
        found = contract_search(tuple(rest), trios, runs, rules, first_only)
        if found is None:
            continue
        placed = sum(pts[x] for m in found for x in m[1])
        left = sum(n * p for n, p in zip(rest, pts, strict=False)) - placed + pts[c]
        if result is None or left < best_left:
            result, best_left = found, left
        if first_only:
            break
    return result


def best_contract(
    counts: Sequence[int], trios: int, runs: int, rules: RuleConfig, owner: int = -1
) -> list[Meld] | None:
    """The arrangement of exactly `trios` trios and `runs` runs leaving the fewest points in
    hand (one card at least), as new ``Meld``s of ``owner`` (trios first, runs in sequence
    order); None if none exists.
    """
    found = best_arrangement(tuple(counts), trios, runs, rules, False)
    if found is None:
        return None
    return [meld_from_row(row, owner) for row in found]


def has_contract(counts: Sequence[int], trios: int, runs: int, rules: RuleConfig) -> bool:
    """Whether the contract can be laid down from these counts with one card left in hand."""
    key = tuple(counts)
    if sum(key) < 3 * trios + rules.min_run * runs + 1:
        return False
    wrap = rules.ace_wraparound
    if not contract_exists(key, trios, runs, rules.min_run, wrap, True):
        return False
    if not trios or not runs or contract_exists(key, trios, runs, rules.min_run, wrap, False):
        return True
    # Only by giving trios naturals taken out of runs: the per-rank count of those may take a
    # run's last natural, so the full search decides (rare: hands of few naturals, many jokers).
    return best_arrangement(key, trios, runs, rules, True) is not None


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
