"""The derived features of ``knock_v1`` (``agents.side_features``), from a ``KnockView``.

Card-indexed planes (``NUM_TYPES`` wide, card id order):

* ``discard_gap``: the cost of the ten cards kept after discarding one copy of each card, as
  ``agents.knock.strong`` costs hands with the fixed ``FEATURE_WEIGHTS`` (deadwood with aces 15, minus the bonus of a hand that may
  knock next turn, minus the expected deadwood the next stock card saves), as a gap to the
  cheapest (``side_features.gap``: 0 for the cheapest); ``FLOOR`` for cards not held. After
  drawing the hand is the 11 cards held; before drawing it is the hand with the up-card taken.
* ``rummy_rank``, ``color_rank``, ``continental_rank``: after drawing, each announcement with a
  discard that is offered, ranked by the bots' ``announcement_score`` among all offered ones
  (0 for the best, -0.5 per place); ``FLOOR`` where not offered.
* ``live``: the live copies of each card type (``strong.live_counts``), halved.

Scalars: the rank of ``knock``, ``rummy``, ``color``, ``continental`` before drawing (the same
scale; ``FLOOR`` where not offered), whether ``take`` is legal, whether the up-card lets the hand
announce rummy, color or continental, the cost of the hand held minus the cost of the best hand
after taking the up-card (``side_features.signed``, positive: taking is cheaper), the hand's
cost and deadwood / 100, the unseen cards / 100; the buy-back inputs: whether it is offered, the
pot and the cost in stakes (/ 10), the players still in over the table size, the pot over the
cost times the players in (``signed`` of its log: the greedy bot buys at 0 or above), the
points the seat would start again from / 100, and each bot's buy rule (``greedy``, and
``strong`` with ``FEATURE_WEIGHTS``: 1 buys).

Everything comes from the view's public fields; ``tests/test_side_features.py`` checks that
hidden cards changed change nothing (and that features read from the true hidden hand would).
"""

from __future__ import annotations

import math

import numpy as np

from agents.knock.greedy import KnockGreedyAgent, announcement_score
from agents.knock.strong import KnockStrongAgent, live_counts
from agents.side_features import FLOOR, gap_plane, signed
from continental_env.cards import NUM_TYPES
from continental_env.knock.game import (
    BUY,
    COLOR,
    COLOR_BASE,
    CONTINENTAL,
    CONTINENTAL_BASE,
    KNOCK,
    RUMMY,
    RUMMY_BASE,
    TAKE,
)
from continental_env.melds import best_lays, color_discards, continental_discards, rummy_discards

PLANES = ("discard_gap", "rummy_rank", "color_rank", "continental_rank", "live")
WORDS = {KNOCK: "knock", RUMMY: "rummy", COLOR: "color", CONTINENTAL: "continental"}
KINDS = ((RUMMY_BASE, "rummy"), (COLOR_BASE, "color"), (CONTINENTAL_BASE, "continental"))
SCALARS = (
    "knock_rank",
    "rummy_rank",
    "color_rank",
    "continental_rank",
    "take_legal",
    "take_announces",
    "take_gain",
    "cost",
    "deadwood",
    "unseen",
    "buy_offered",
    "pot",
    "buy_cost",
    "players_in",
    "pot_per_cost",
    "buy_back_total",
    "greedy_buys",
    "strong_buys",
)
# The weights ``strong`` valued hands with when ``knock_v1`` was defined. They stay fixed here so
# that a trained model's inputs do not change when ``strong`` itself is retuned.
FEATURE_WEIGHTS = {"draw_weight": 1.5, "buy_share": 1.0, "no_buy_chance": 0.05}
_STRONG = KnockStrongAgent(**FEATURE_WEIGHTS)


def _ranks(keys: dict[int, tuple]) -> dict[int, float]:
    """Each option's place among ``keys`` (best first), as 0, -0.5, -1 ... (at least -3)."""
    order = sorted(keys, key=lambda a: (keys[a], -a), reverse=True)
    return {a: max(-3.0, -0.5 * i) for i, a in enumerate(order)}


def _discard_plane(hand: list[int], live: list[int], unseen: int) -> np.ndarray:
    return gap_plane(_STRONG.discard_costs(hand, live, unseen), higher_is_better=False)


def _buy(view: object, scalars: dict[str, float]) -> None:
    cost = view.buy_cost
    players_in = view.players_in
    scalars["buy_offered"] = 1.0
    scalars["pot"] = view.pot / view.stake / 10.0
    scalars["buy_cost"] = cost / view.stake / 10.0
    scalars["players_in"] = players_in / view.num_players
    scalars["pot_per_cost"] = signed(math.log(max(view.pot, 1) / (cost * players_in)))
    scalars["buy_back_total"] = (view.buy_back_total or 0) / 100.0
    scalars["greedy_buys"] = float(KnockGreedyAgent.buy_pays(view))
    scalars["strong_buys"] = float(_STRONG.buy_pays(view))


def _start(view: object, legal: list[int], hand: list[int], live: list[int], unseen: int,
           scalars: dict[str, float]) -> np.ndarray:  # fmt: skip
    words = {a: announcement_score(WORDS[a], hand, view.stake) for a in legal if a in WORDS}
    for a, rank in _ranks(words).items():
        scalars[f"{WORDS[a]}_rank"] = rank
    top = view.discard_top
    if TAKE not in legal or top is None:
        return np.full(NUM_TYPES, FLOOR, dtype=np.float32)
    with_top = list(hand)
    with_top[top] += 1
    scalars["take_legal"] = 1.0
    announces = rummy_discards(with_top) or color_discards(with_top)
    scalars["take_announces"] = float(bool(announces or continental_discards(with_top)))
    _card, after = _STRONG.best_discard(with_top, live, unseen)
    scalars["take_gain"] = signed((_STRONG.cost(hand, live, unseen) - after) / 10.0)
    return _discard_plane(with_top, live, unseen)


def _announce_planes(view: object, legal: list[int]) -> list[np.ndarray]:
    keys = {}
    for base, kind in KINDS:
        for a in legal:
            if base <= a < base + NUM_TYPES:
                rest = list(view.hand)
                rest[a - base] -= 1
                keys[a] = announcement_score(kind, rest, view.stake)
    ranks = _ranks(keys)
    planes = []
    for base, _kind in KINDS:
        plane = np.full(NUM_TYPES, FLOOR, dtype=np.float32)
        for a, rank in ranks.items():
            if base <= a < base + NUM_TYPES:
                plane[a - base] = rank
        planes.append(plane)
    return planes


def features(view: object) -> np.ndarray:
    """The features of the seat's view (``FLOOR`` planes and zeros where it has no decision)."""
    legal = list(view.legal_actions)
    live, unseen = live_counts(view)
    hand = list(view.hand)
    scalars = dict.fromkeys(SCALARS, 0.0)
    for word in WORDS.values():
        scalars[f"{word}_rank"] = FLOOR
    scalars["unseen"] = unseen / 100.0
    if sum(hand):
        scalars["cost"] = _STRONG.cost(hand, live, unseen) / 100.0
        scalars["deadwood"] = best_lays(hand)[0] / 100.0
    discard = np.full(NUM_TYPES, FLOOR, dtype=np.float32)
    announce = [np.full(NUM_TYPES, FLOOR, dtype=np.float32) for _ in KINDS]
    if legal and view.phase == "buy":
        if BUY in legal:
            _buy(view, scalars)
    elif legal and view.phase == "draw":
        discard = _start(view, legal, hand, live, unseen, scalars)
    elif legal:
        discard = _discard_plane(hand, live, unseen)
        announce = _announce_planes(view, legal)
    planes = [discard, *announce, np.asarray(live, dtype=np.float32) / 2.0]
    return np.concatenate([*planes, np.array([scalars[k] for k in SCALARS], dtype=np.float32)])
