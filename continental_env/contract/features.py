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
A card type *reduces* the distance when the hand plus that card is nearer. The search is a meld
question and lives with the others (``melds.distance``: ``hand_analysis``, ``contract_distance``,
``reducing_cards``, re-exported here); ``melds.has_contract`` is its reference in the tests (the
distance equals the fewest cards whose addition makes ``has_contract`` true, on every small hand
tried). The per-card usage comes from the first best plan: a hand card is in a trio, in a run, or
deadwood. Everything that depends only on the hand, the contract and the rules is cached
(``hand_analysis``).

**Public history.** ``public_log.PublicLog`` records every action of the round with the card it
showed. The engine keeps one as ``game.public_log`` (recorded in ``apply`` after the legality
check, copied by ``clone``, saved as entries by ``to_dict`` and rebuilt by ``PublicLog.restore``);
the features read it, or the ``log`` argument for a game object that keeps none. Nothing in an
entry is hidden (``continental_env.contract.public_log``).

**Compiled.** ``encode_features`` runs the compiled kernel when built
(``continental_env/_features_c.h``, behind ``continental_env.kernels``), else
``encode_features_reference``, the readable definition here; the vectors are the same bit for
bit (``tests/test_features_kernel.py``).

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
from continental_env.contract.public_log import KINDS, NO_CARD, PublicLog
from continental_env.layout import consecutive_slices
from continental_env.melds.core import Meld
from continental_env.melds.distance import (
    contract_distance,
    hand_analysis,
    hand_analysis_reference,
    reducing_cards,
)
from continental_env.rules import RuleConfig, deck_counts, points_table

__all__ = [
    "HISTORY",
    "KINDS",
    "MAX_DISTANCE",
    "PublicLog",
    "contract_distance",
    "count_unseen",
    "encode_features",
    "encode_features_reference",
    "feature_layout",
    "hand_analysis",
    "hand_analysis_reference",
    "public_entries",
    "reducing_cards",
    "unseen_counts",
]

HISTORY = 8
MAX_DISTANCE = 7  # the distance one-hot's last slot holds this and more


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


def count_unseen(
    deck: Sequence[int],
    hand: Sequence[int],
    discard: Sequence[int],
    table: Sequence[Meld],
    known: Sequence[Sequence[int]],
    seat: int,
) -> list[int]:
    """Copies of each card type ``seat`` has not seen this round: the round's ``deck``
    (``rules.deck_counts``) less its ``hand`` (counts), the ``discard`` pile, the cards on the
    ``table`` and the cards other seats are ``known`` to hold (counts per seat), never below 0.

    The one unseen-card count: the v1 features (``unseen_counts``) and the bots
    (``agents.handtools.unseen_counts``) both call it.
    """
    out = [d - h for d, h in zip(deck, hand, strict=True)]
    for c in discard:
        out[c] -= 1
    for meld in table:
        for c in meld.cards:
            out[c] -= 1
    for s, cards in enumerate(known):
        if s != seat:
            out = [n - k for n, k in zip(out, cards, strict=True)]
    return [n if n > 0 else 0 for n in out]


def unseen_counts(game: Any, seat: int) -> list[int]:
    """Copies of each card type ``seat`` has not seen this round (public information only)."""
    deck = deck_counts(game.rules, game.num_players, game.round)
    return count_unseen(deck, game.hands[seat], game.discard, game.table, game.known, seat)


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


@lru_cache(maxsize=64)
def _layout_of(num_players: int) -> dict[str, slice]:
    """``feature_layout``, kept to recognise the layout the kernel writes (never handed out)."""
    return feature_layout(num_players)


# The deck and points of the last (rules, players, round) seen: the same on every call of a
# round, and cheaper compared by identity than hashed into the lru_caches (a RuleConfig's
# hash reads every field).
_statics: list[tuple[Any, ...]] = [(None, 0, 0, (), ())]


def encode_features(
    game: Any,
    seat: int,
    layout: dict[str, slice] | None = None,
    log: PublicLog | None = None,
) -> np.ndarray:
    """The feature vector of ``seat`` (see the module table); public information only.

    The compiled kernel writes it when built (``continental_env.kernels``), else
    ``encode_features_reference`` does; the same vector either way. A ``layout`` other than
    ``feature_layout(P)`` goes to the reference, which honours any slices.
    """
    p = game.num_players
    expected = _layout_of(p)
    if layout is None:
        layout = expected  # read only, by either path
    native = kernels.native
    if native is None or (layout is not expected and layout != expected):
        return encode_features_reference(game, seat, layout, log)
    out = np.empty(expected["history"].stop, dtype=np.float32)
    native.encode_features(out, *_kernel_arguments(game, seat, log))
    return out


def _kernel_arguments(
    game: Any, seat: int, log: PublicLog | None, history: bool = True
) -> tuple[Any, ...]:
    """The arguments of the kernel's ``encode_features`` after ``out``: the fields the
    reference reads, as lists and ints (``log``: as in ``encode_features``). ``history=False``
    leaves the public log out (None), for a caller that writes no features."""
    p = game.num_players
    rules = game.rules
    round_number = game.round
    st = _statics[0]  # one tuple, replaced whole: a reader never sees half an update
    if st[0] is not rules or st[1] != p or st[2] != round_number:
        st = (rules, p, round_number, deck_counts(rules, p, round_number), points_table(rules))
        _statics[0] = st
    live = game.phase != "game_over"
    record = _log_for(game, log) if live and history else None
    trios, runs = game.contract
    if record is None:  # no log of this round: no totals, no history
        totals: tuple[Any, ...] = (None, None, None, None, None)
    else:
        totals = (record.discarded, record.declined, record.takes, record.discards, record.items)
    return (
        p, seat, trios, runs, rules.min_run, rules.ace_wraparound, live, game.laid_down[seat],
        game.hands[seat], st[3], game.discard, [meld.cards for meld in game.table], game.known,
        game.hand_sizes, game.laid_down, game.claims, st[4], *totals,
    )  # fmt: skip


def encode_features_reference(
    game: Any,
    seat: int,
    layout: dict[str, slice] | None = None,
    log: PublicLog | None = None,
) -> np.ndarray:
    """``encode_features`` in Python and numpy: the readable definition the kernel follows."""
    p = game.num_players
    if layout is None:
        layout = feature_layout(p)
    out = np.zeros(layout["history"].stop, dtype=np.float32)
    rules = game.rules
    hand = tuple(game.hands[seat])
    hand_array = np.asarray(hand, dtype=np.float32)
    live = game.phase != "game_over"
    unseen = np.asarray(unseen_counts(game, seat), dtype=np.int64)
    if game.laid_down[seat] or not live:
        out[layout["deadwood"]] = hand_array
    else:
        top = game.discard[-1] if game.discard else None
        _encode_contract(out, layout, hand, game.contract, rules, unseen, top)
    out[layout["partners"]] = _partners(hand, rules.min_run - 1, rules.ace_wraparound)
    out[layout["points"]] = hand_array * _points_array(rules)
    out[layout["unseen"]] = unseen
    record = _log_for(game, log) if live else None
    entries = record.items if record is not None else []
    takes, discards = _encode_totals(out, layout, record, entries, seat, p)
    _encode_opponents(out, layout, game, seat, takes, discards)
    _encode_history(out, layout, entries, seat, p)
    return out


def _encode_contract(
    out: np.ndarray,
    layout: dict[str, slice],
    hand: tuple[int, ...],
    contract: tuple[int, int],
    rules: RuleConfig,
    unseen: np.ndarray,
    top: int | None,
) -> None:
    """Distance to the contract and the use of each hand card (a live seat not yet down)."""
    trios, runs = contract
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


def _encode_totals(
    out: np.ndarray,
    layout: dict[str, slice],
    record: PublicLog | None,
    entries: list,
    seat: int,
    p: int,
) -> tuple[Sequence[int], Sequence[int]]:
    """Who discarded and who declined what; each relative seat's takes and discards."""
    if record is None or not entries:
        zeros = np.zeros(p, dtype=np.int64)
        return zeros, zeros
    order = [(seat + k) % p for k in range(p)]  # the log's running totals, by relative seat
    cut = seat * NUM_TYPES  # the flat per-seat totals rotated to start at the seat itself
    out[layout["discarded"]] = record.discarded[cut:] + record.discarded[:cut]
    out[layout["declined"]] = record.declined[cut:] + record.declined[:cut]
    return [record.takes[s] for s in order], [record.discards[s] for s in order]


def _encode_opponents(
    out: np.ndarray,
    layout: dict[str, slice],
    game: Any,
    seat: int,
    takes: Sequence[int],
    discards: Sequence[int],
) -> None:
    p = game.num_players
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


def _encode_history(
    out: np.ndarray, layout: dict[str, slice], entries: list, seat: int, p: int
) -> None:
    """The last ``HISTORY`` public actions, newest first."""
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
