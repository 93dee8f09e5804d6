"""Derived features of one seat's public information: the extra part of the ``continental_v1``
observation.

The v0 observation (``continental_env.env.encode_observation``) holds raw counts. These features
hold what a player reasons with, computed by the one meld validator (``melds.has_contract``,
``melds.best_contract``) from what the seat may see: its own hand, the table, the discard pile,
the cards others are publicly known to hold, sizes, claims and the round's public actions. The
stock order, opponents' unrevealed cards and penalty cards are never read (``tests/test_features``
checks it, with a deliberately leaking variant as the positive control). Pure Python and numpy:
no gymnasium, no torch.

**Distance to the contract.** ``contract_distance(counts, trios, runs, rules)`` is the fewest
cards to add to a hand (any card types, copies not limited) before the round's contract can be
laid down with one card left in hand, over all ways to arrange it; 0 when it can be laid down now.
A card type *reduces* the distance when the hand plus that card is nearer. The search runs over
the run windows of the meld validator (``melds._min_spans``) and trio ranks (section below);
``melds.has_contract`` is its reference in the tests (the distance equals the fewest cards whose
addition makes ``has_contract`` true, on every small hand tried). The per-card usage comes from
the first best plan: a hand card is in a trio, in a run, or deadwood. Everything that depends
only on the hand, the contract and the rules is cached (``hand_analysis``).

**Public history.** ``public_log.PublicLog`` records every action of the round with the card it
showed. The engine keeps one as ``game.public_log`` (recorded in ``apply`` after the legality
check, copied by ``clone``, saved as entries by ``to_dict`` and rebuilt by ``PublicLog.restore``);
the features read it, or the ``log`` argument for a game object that keeps none. Nothing in an
entry is hidden (``continental_env.public_log``).

**How the environment uses it.** The ``continental_v1`` observation
(``continental_env.env``) is the v0 vector followed by
``encode_features(game, seat, feature_layout(P))``.

Layout (``feature_layout(P)``; seats relative, +0 is the seat itself; ``D = 53`` card types):

| name | size | content |
|---|---|---|
| ``distance`` | 8 | one-hot of the distance to the contract: 0 .. 6, 7 or more (all 0 once laid down) |
| ``reducers`` | D | 1 for each card type that would reduce the distance (before laying down) |
| ``offer`` | 3 | a discard is on offer; it reduces the distance; the distance with it / 10 |
| ``stock_draw`` | 2 | chance that an unseen card reduces the distance; expected distance after it / 10 |
| ``in_trio`` | D | hand cards of each type placed in a trio of the best partial contract |
| ``in_run`` | D | hand cards of each type placed in a run of the best partial contract |
| ``deadwood`` | D | hand cards of each type left out of it (all of the hand once laid down) |
| ``partners`` | D | for types in hand: other hand cards of its rank or of its suit within a run's reach, / 4 |
| ``points`` | D | points of the hand cards of each type / 50 |
| ``unseen`` | D | copies of each type the seat has not seen this round (deck - hand - pile - table - known) |
| ``discarded`` | P x D | cards each relative seat discarded face up this round |
| ``declined`` | P x D | cards each relative seat declined (drew from the stock over it, or passed a claim) |
| ``opponents`` | (P-1) x 6 | per opponent: hand size / 20, laid down, claims / 3, known cards / 10, takes / 5, discards / 20 |
| ``history`` | H x (P + 10 + 18) | the last H public actions, newest first: relative seat, kind, rank + suit of the card shown |

``H = HISTORY`` (8). Action kinds in ``history``: draw, take, claim, pass, laydown, close, discard,
layoff, swap, movejoker; the card is one-hot over 13 ranks then 5 suits (the joker's "suit" is
the fifth), all zero when the action shows no card.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from continental_env import kernels
from continental_env.cards import JOKER, NUM_NATURALS, NUM_RANKS, NUM_TYPES
from continental_env.layout import consecutive_slices
from continental_env.melds import _min_spans
from continental_env.public_log import KINDS, NO_CARD, PublicLog
from continental_env.rules import RuleConfig, points_table

HISTORY = 8
MAX_DISTANCE = 7  # the distance one-hot's last slot holds this and more


# ============================================================================ distance to contract
#
# The distance counts card slots: a lay-down needs ``3 x trios + min_run x runs`` cards in melds
# and one more in hand. Minimal melds are enough (any trio holds three of its cards, any run a
# window of ``min_run`` consecutive positions, and dropping cards never leaves more slots empty),
# so a *plan* is a choice of ``runs`` windows (``melds._min_spans``: a suit and ``min_run``
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
    """Card ids of every run window (a suit and ``min_run`` consecutive positions)."""
    return tuple(
        tuple(suit * NUM_RANKS + r for r in ranks)
        for suit in range(4)
        for ranks in _min_spans(min_run, wrap)
    )


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


# ============================================================================ public history


def _log_for(game: Any, log: PublicLog | None) -> PublicLog | None:
    """The ``PublicLog`` of this round: the engine's ``public_log`` if it keeps one, else
    ``log``; None when neither belongs to this round."""
    record = getattr(game, "public_log", None)
    if not isinstance(record, PublicLog):
        record = log
    if record is None or record.key != PublicLog.round_key(game):
        return None
    return record


def public_entries(game: Any, log: PublicLog | None = None) -> list[tuple[int, int, int]]:
    """The round's public actions (``_log_for``), oldest first; empty once the game is over."""
    record = _log_for(game, log) if game.phase != "game_over" else None
    return [] if record is None else record.items


# ============================================================================ the feature vector


def feature_layout(num_players: int) -> dict[str, slice]:
    """Names of the features mapped to their slices (see the module table)."""
    p = num_players
    d = NUM_TYPES
    parts = [
        ("distance", MAX_DISTANCE + 1),
        ("reducers", d),
        ("offer", 3),
        ("stock_draw", 2),
        ("in_trio", d),
        ("in_run", d),
        ("deadwood", d),
        ("partners", d),
        ("points", d),
        ("unseen", d),
        ("discarded", p * d),
        ("declined", p * d),
        ("opponents", (p - 1) * 6),
        ("history", HISTORY * (p + len(KINDS) + NUM_RANKS + 5)),
    ]
    return consecutive_slices(parts)


@lru_cache(maxsize=64)
def _deck_totals(rules: RuleConfig, num_players: int, round_number: int) -> tuple[int, ...]:
    decks = rules.decks(num_players, round_number)
    return (decks,) * NUM_NATURALS + (decks * rules.jokers_per_deck,)


@lru_cache(maxsize=8_192)
def _partners(counts: tuple[int, ...], reach: int, wrap: bool) -> tuple[float, ...]:
    out = [0.0] * NUM_TYPES
    for c in range(NUM_NATURALS):
        if not counts[c]:
            continue
        rank, suit = c % NUM_RANKS, c // NUM_RANKS
        n = sum(counts[s * NUM_RANKS + rank] for s in range(4)) - 1
        for delta in range(1, reach + 1):
            for r in (rank - delta, rank + delta):
                if wrap:
                    r %= NUM_RANKS
                elif not 0 <= r < NUM_RANKS:
                    continue
                n += counts[suit * NUM_RANKS + r]
        out[c] = n / 4.0
    if counts[JOKER]:
        out[JOKER] = (sum(counts) - 1) / 4.0  # a joker partners every card
    return tuple(out)


def _unseen(game: Any, seat: int) -> np.ndarray:
    """Copies of each card type ``seat`` has not seen this round, as an int array."""
    out = np.array(_deck_totals(game.rules, game.num_players, game.round), dtype=np.int64)
    out -= np.asarray(game.hands[seat])
    seen = list(game.discard)
    for meld in game.table:
        seen.extend(meld.cards)
    if seen:
        out -= np.bincount(seen, minlength=NUM_TYPES)
    others = [k for s, k in enumerate(game.known) if s != seat]
    if others:
        out -= np.asarray(others).sum(axis=0)
    return np.maximum(out, 0)


def unseen_counts(game: Any, seat: int) -> list[int]:
    """Copies of each card type ``seat`` has not seen this round (public information only)."""
    return _unseen(game, seat).tolist()


@lru_cache(maxsize=8_192)
def _hand_arrays(
    counts: tuple[int, ...], trios: int, runs: int, rules: RuleConfig
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``hand_analysis`` as arrays: distance, reducers (0/1), in trios, in runs, deadwood."""
    distance, reducing, in_trio, in_run = hand_analysis(counts, trios, runs, rules)
    reducers = np.zeros(NUM_TYPES, dtype=np.float32)
    reducers[list(reducing)] = 1.0
    trio = np.asarray(in_trio, dtype=np.float32)
    run = np.asarray(in_run, dtype=np.float32)
    dead = np.asarray(counts, dtype=np.float32) - trio - run
    for array in (reducers, trio, run, dead):
        array.flags.writeable = False  # shared by every caller through the cache
    return distance, reducers, trio, run, dead


@lru_cache(maxsize=64)
def _points_array(rules: RuleConfig) -> np.ndarray:
    return np.asarray(points_table(rules), dtype=np.float32) / 50.0


def encode_features(
    game: Any,
    seat: int,
    layout: dict[str, slice] | None = None,
    log: PublicLog | None = None,
) -> np.ndarray:
    """The feature vector of ``seat`` (see the module table); public information only."""
    p = game.num_players
    if layout is None:
        layout = feature_layout(p)
    out = np.zeros(layout["history"].stop, dtype=np.float32)
    rules = game.rules
    hand = tuple(game.hands[seat])
    hand_array = np.asarray(hand, dtype=np.float32)
    live = game.phase != "game_over"
    unseen = _unseen(game, seat)
    top = game.discard[-1] if game.discard and live else None

    # Distance to the contract and the use of each hand card (before laying down).
    if game.laid_down[seat] or not live:
        out[layout["deadwood"]] = hand_array
    else:
        trios, runs = game.contract
        distance, reducers, in_trio, in_run, dead = _hand_arrays(hand, trios, runs, rules)
        out[layout["distance"].start + min(distance, MAX_DISTANCE)] = 1.0
        out[layout["reducers"]] = reducers
        o = layout["offer"].start
        if top is not None:
            out[o] = 1.0
            out[o + 1] = reducers[top]
            out[o + 2] = (distance - reducers[top]) / 10.0
        total = int(unseen.sum())
        if total:
            chance = float(unseen @ reducers) / total
            s = layout["stock_draw"].start
            out[s] = chance
            out[s + 1] = (distance - chance) / 10.0
        out[layout["in_trio"]] = in_trio
        out[layout["in_run"]] = in_run
        out[layout["deadwood"]] = dead
    out[layout["partners"]] = _partners(hand, rules.min_run - 1, rules.ace_wraparound)
    out[layout["points"]] = hand_array * _points_array(rules)
    out[layout["unseen"]] = unseen

    # Who discarded and who declined what, and the recent public actions.
    record = _log_for(game, log) if live else None
    entries = record.items if record is not None else []
    takes = discards = np.zeros(p, dtype=np.int64)
    if record is not None and entries:  # the log's running totals, turned to relative seats
        order = [(seat + k) % p for k in range(p)]
        cut = seat * NUM_TYPES  # the flat per-seat totals rotated to start at the seat itself
        out[layout["discarded"]] = record.discarded[cut:] + record.discarded[:cut]
        out[layout["declined"]] = record.declined[cut:] + record.declined[:cut]
        takes = [record.takes[s] for s in order]
        discards = [record.discards[s] for s in order]
    o = layout["opponents"].start
    for k in range(1, p):
        s = (seat + k) % p
        base = o + 6 * (k - 1)
        out[base] = game.hand_sizes[s] / 20.0
        out[base + 1] = 1.0 if game.laid_down[s] else 0.0
        out[base + 2] = game.claims[s] / 3.0
        out[base + 3] = sum(game.known[s]) / 10.0
        out[base + 4] = takes[k] / 5.0
        out[base + 5] = discards[k] / 20.0
    width = p + len(KINDS) + NUM_RANKS + 5
    base = layout["history"].start
    for i, (who, kind, card) in enumerate(reversed(entries[-HISTORY:])):
        row = base + i * width
        out[row + (who - seat) % p] = 1.0
        out[row + p + kind] = 1.0
        if card != NO_CARD:
            card_base = row + p + len(KINDS)
            if card == JOKER:
                out[card_base + NUM_RANKS + 4] = 1.0
            else:
                out[card_base + card % NUM_RANKS] = 1.0
                out[card_base + NUM_RANKS + card // NUM_RANKS] = 1.0
    return out
