"""The lay-down choice (RULES 1.4): which contract arrangement goes down, counting this turn's
lay-offs.

Built on the contract search (``melds.contract``): its fewest-points arrangement is the first
candidate (so ties keep it), and the rest of the work is the lay-off closure, a different
objective from the search's. ``laydown_plan`` is cached per (hand, contract, rules, table); it
runs the compiled port (``continental_env/_laydown_c.h``, which the batch core runs too) when the
kernels are built, else ``laydown_plan_reference``, the readable definition below.
``core_combinations`` and ``stuck_bound`` are the reference of the compiled core enumeration
(``laydown_cores``; ``tests/test_kernels.py``, ``tests/test_laydown_kernel.py``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import combinations, product

from continental_env import kernels
from continental_env.cards import JOKER, NUM_RANKS, NUM_TYPES, rank_of, suit_of
from continental_env.melds.contract import best_arrangement
from continental_env.melds.core import HIGH, LOW, RUN, TRIO, Meld, meld_from_row
from continental_env.melds.layoffs import end_card, extend_run, run_can_extend
from continental_env.rules import RuleConfig, points_table

__all__ = [
    "LAYDOWN_BUDGET",
    "LAYDOWN_EXACT_CARDS",
    "best_laydown",
    "core_combinations",
    "laydown_outcome",
    "laydown_plan",
    "laydown_plan_reference",
    "rest_after",
    "stuck_bound",
]

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
    plan = laydown_plan(tuple(counts), trios, runs, rules, _table_signature(table))
    if plan is None:
        return None
    return [meld_from_row(row, owner) for row in plan[1]]


def laydown_outcome(
    counts: Sequence[int],
    trios: int,
    runs: int,
    rules: RuleConfig,
    table: Sequence[Meld] = (),
) -> _LaydownKey | None:
    """(cards left, points left) after ``best_laydown`` and the best lay-offs this turn, and the
    points in hand right after the lay-down; None if the contract cannot be laid down."""
    plan = laydown_plan(tuple(counts), trios, runs, rules, _table_signature(table))
    return None if plan is None else plan[0]


def _table_signature(table: Sequence[Meld]) -> tuple:
    return tuple((m.kind, tuple(m.cards), m.start, m.rank, m.suit) for m in table)


@lru_cache(maxsize=256)
def laydown_plan(
    counts: tuple[int, ...], trios: int, runs: int, rules: RuleConfig, signature: tuple
) -> tuple[_LaydownKey, tuple] | None:
    """(``laydown_outcome``'s key, the arrangement as (kind, cards, start, key) rows) of the
    lay-down chosen from ``counts`` onto the table of ``signature``; None without a contract.

    The compiled kernel (``continental_env/_laydown_c.h``) when built, else
    ``laydown_plan_reference``; the same value either way."""
    native = kernels.native
    if native is None:
        return laydown_plan_reference(counts, trios, runs, rules, signature)
    return native.laydown_plan(
        counts, trios, runs, rules.min_run, rules.ace_wraparound, points_table(rules), signature
    )


def laydown_plan_reference(
    counts: tuple[int, ...], trios: int, runs: int, rules: RuleConfig, signature: tuple
) -> tuple[_LaydownKey, tuple] | None:
    """``laydown_plan`` in Python, the readable definition (uncached)."""
    first = best_arrangement(counts, trios, runs, rules, False)
    if first is None:
        return None
    pts = points_table(rules)
    if sum(counts) > LAYDOWN_EXACT_CARDS:
        return _fewest_points_plan(counts, first, pts)
    table = [
        Meld(-1, kind, list(cards), start, rank, suit)
        for kind, cards, start, rank, suit in signature
    ]
    candidates = _core_candidates(counts, trios, runs, rules, first, table, pts)
    best_key, best_own = _best_closure(counts, table, candidates, rules, pts)
    trio_melds = [m for m in best_own if m.kind == TRIO]
    run_melds = [m for m in best_own if m.kind == RUN]
    arrangement = tuple((TRIO, tuple(m.cards), 0, m.rank) for m in trio_melds) + tuple(
        (RUN, tuple(m.cards), m.start, m.suit) for m in run_melds
    )
    return best_key, arrangement


def _best_closure(
    counts: tuple[int, ...],
    table: Sequence[Meld],
    candidates: Iterator[tuple[tuple[int, int], Sequence]],
    rules: RuleConfig,
    pts: Sequence[int],
) -> tuple[_LaydownKey, list[Meld]]:
    """The best ``_closure`` over the first ``LAYDOWN_BUDGET`` candidates (the first one wins
    ties), skipping those whose bound cannot beat it."""
    floor = min(pts[c] for c in range(NUM_TYPES) if counts[c])
    best_key: _LaydownKey | None = None
    best_own: list[Meld] = []
    for examined, (bound, arrangement) in enumerate(candidates):
        if examined >= LAYDOWN_BUDGET:
            break
        if best_key is not None and bound > best_key[:2]:
            continue
        own = _as_melds(arrangement)
        rest = rest_after(counts, own)
        key, final_own = _closure(rest, table, own, rules, pts)
        if best_key is None or key < best_key:
            best_key, best_own = key, final_own
            if key == (1, floor, floor):
                break  # one cheapest card kept, everything else on the player's own melds
    assert best_key is not None
    return best_key, best_own


def _as_melds(arrangement: Sequence) -> list[Meld]:
    """Melds of owner -1 from (kind, cards, start, key) rows; a list of Melds passes through."""
    return [
        m
        if isinstance(m, Meld)
        else Meld(-1, TRIO, list(m[1]), rank=m[3])
        if m[0] == TRIO
        else Meld(-1, RUN, list(m[1]), start=m[2], suit=m[3])
        for m in arrangement
    ]  # ``meld_from_row`` inline: this runs for every core combination examined


def rest_after(counts: Sequence[int], own: Sequence[Meld]) -> list[int]:
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
    """(``stuck_bound``, arrangement) of every core combination in ``core_combinations``'
    order. The compiled kernel (``continental_env.kernels``) enumerates them, bounds included,
    as (kind, cards, start, key) rows; the reference yields lists of Melds."""
    native = kernels.native
    if native is None:
        for own in core_combinations(counts, trios, runs, rules, first):
            yield stuck_bound(rest_after(counts, own), table, own, pts), own
        return
    own = _as_melds(first)
    yield stuck_bound(rest_after(counts, own), table, own, pts), first
    table_ranks = sum({1 << m.rank for m in table if m.kind == TRIO})
    table_suits = sum({1 << m.suit for m in table if m.kind == RUN})
    rows = native.laydown_cores(
        counts, trios, runs, rules.min_run, rules.ace_wraparound, pts, table_ranks,
        table_suits, LAYDOWN_BUDGET - 1,
    )  # fmt: skip
    for stuck, stuck_points, arrangement in rows:
        yield (stuck, stuck_points), arrangement


def core_combinations(
    counts: tuple[int, ...], trios: int, runs: int, rules: RuleConfig, first: tuple
) -> Iterator[list[Meld]]:
    """``best_contract``'s arrangement first (so ties keep it), then combinations of cores.

    Trio cores: 1-3 naturals of a rank (each multiset of suits) and jokers up to three. Run cores:
    a span of ``min_run`` positions of one suit, filled with the naturals still in hand and jokers
    for the rest (a joker instead of a natural in hand is never better: the natural would then
    have to go elsewhere). Options with more and costlier naturals come first.
    """
    yield [meld_from_row(row) for row in first]
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


def stuck_bound(
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
    (placed, placed_points, own_points), combo, spare_own = _best_combination(
        per_suit, jokers, bool(trio_any), bool(trio_own), pts[JOKER]
    )
    if placed == size and keep_one:
        return _keep_cheapest(rest, table, own, rules, pts)
    key = (size - placed, points - placed_points, points - own_points)
    return key, _own_result(rest, melds, is_own, combo, spare_own, trio_own, rules)


def _best_combination(
    per_suit: list[list[tuple]], jokers: int, any_trio: bool, own_trio: bool, joker_points: int
) -> tuple[tuple[int, int, int], tuple, int]:
    """The suits' lay-off options combined under the jokers in hand: ((cards placed, their
    points, their points on own melds), one option per suit, spare jokers on own melds), the
    first of the most (placed, points, own points). Spare jokers go on a trio if any, else into
    the runs' room."""
    best: tuple | None = None
    for combo in product(*per_suit):
        used = sum(o[0] for o in combo)
        if used > jokers:
            continue
        spare = jokers - used
        room = sum(o[4] for o in combo)
        own_room = sum(o[5] for o in combo)
        if any_trio:
            spare_placed = spare
            spare_own = spare if own_trio else min(spare, own_room)
        else:
            spare_placed = min(spare, room)
            spare_own = min(spare, own_room)
        placed = sum(o[1] for o in combo) + spare_placed
        placed_points = sum(o[2] for o in combo) + spare_placed * joker_points
        own_points = sum(o[3] for o in combo) + spare_own * joker_points
        value = (placed, placed_points, own_points)
        if best is None or value > best[0]:
            best = (value, combo, spare_own)
    assert best is not None  # every suit offers at least the empty option
    return best


def _keep_cheapest(
    rest: list[int], table: Sequence[Meld], own: Sequence[Meld], rules: RuleConfig, pts
) -> tuple[_LaydownKey, list[Meld]]:
    """Everything could go, but a lay-off must leave a card: keep the cheapest card whose
    absence still lets the rest go (the last lay-off of any full sequence is such a card)."""
    for c in sorted((c for c in range(NUM_TYPES) if rest[c]), key=lambda c: pts[c]):
        rest[c] -= 1
        key, final_own = _closure(rest, table, own, rules, pts, keep_one=False)
        rest[c] += 1
        if key[0] == 0:
            return (1, pts[c], key[2] + pts[c]), final_own
    raise AssertionError("a full lay-off sequence always has a last card")  # pragma: no cover


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
    _replay_run_layoffs(melds, combo, hand, rules)
    own = [m for m, mine in zip(melds, is_own, strict=True) if mine]
    for meld in own:
        if meld.kind == TRIO and meld.rank in trio_own:
            for s in range(4):
                c = s * 13 + meld.rank
                meld.cards.extend([c] * hand[c])
                hand[c] = 0
    for _ in range(spare_own):
        _place_spare_joker(own, rules)
    return own


def _replay_run_layoffs(
    melds: list[Meld], combo: Sequence[tuple], hand: list[int], rules: RuleConfig
) -> None:
    """Lay the chosen chains off on the runs' ends (naturals from ``hand``, jokers bridging)."""
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


def _place_spare_joker(own: list[Meld], rules: RuleConfig) -> None:
    """One spare joker onto the player's own melds: the trio with the fewest naturals takes it
    (4C 4D JK JK beside 5C 5D 5H), else the first run with room, at its high end if it can."""
    trios = [m for m in own if m.kind == TRIO]
    if trios:
        target = min(trios, key=lambda m: sum(c != JOKER for c in m.cards))
        target.cards.append(JOKER)
        return
    target = next(m for m in own if m.kind == RUN and len(m.cards) < NUM_RANKS)
    end = HIGH if run_can_extend(target, HIGH, rules) else LOW
    extend_run(target, JOKER, end, rules)
