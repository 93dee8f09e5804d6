"""The derived features of ``knock_v1`` and ``knock_v2`` (``agents.side_features``), from a
``KnockView``.

``knock_v2`` is ``knock_v1``'s vector computed with the weights of the retuned ``strong``
(``FEATURE_WEIGHTS_V2``) followed by the weight-free parts of its costs (below), so that a later
retune of the bot's weights needs no new version: a network can weigh the parts itself.

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

``knock_v2`` appends three card-indexed planes after ``live``, of the ten cards kept after
discarding one copy of each card (``FLOOR`` for cards not held; before drawing, of the hand with
the up-card taken, as ``discard_gap``): ``discard_deadwood`` (their deadwood / 100),
``discard_ready`` (1 if they may knock next turn) and ``discard_saving`` (the expected deadwood
the next stock card saves / 10, ``strong.expected_saving``); and two scalars after
``strong_buys``, ``ready`` and ``saving`` of the hand held (the same scales; 0 with no hand).

Everything comes from the view's public fields; ``tests/test_side_features.py`` checks that
hidden cards changed change nothing (and that features read from the true hidden hand would).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.knock.greedy import KnockGreedyAgent, announcement_score
from agents.knock.strong import KnockStrongAgent, cost_parts, live_counts
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
from continental_env.melds import color_discards, continental_discards, rummy_discards

PLANES = ("discard_gap", "rummy_rank", "color_rank", "continental_rank", "live")
PARTS = ("discard_deadwood", "discard_ready", "discard_saving")
PLANES_V2 = PLANES + PARTS
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
SCALARS_V2 = (*SCALARS, "ready", "saving")
# The weights ``strong`` valued hands with when ``knock_v1`` was defined. They stay fixed here so
# that a trained model's inputs do not change when ``strong`` itself is retuned.
FEATURE_WEIGHTS = {"draw_weight": 1.5, "buy_share": 1.0, "no_buy_chance": 0.05}
# The retuned ``strong``'s weights (``agents.knock.strong`` when ``knock_v2`` was defined), fixed
# for the same reason.
FEATURE_WEIGHTS_V2 = {"draw_weight": 0.5, "buy_share": 0.5, "no_buy_chance": 0.0}
_STRONG = KnockStrongAgent(**FEATURE_WEIGHTS)
_STRONG_V2 = KnockStrongAgent(**FEATURE_WEIGHTS_V2)
VERSIONS = {1: (PLANES, SCALARS), 2: (PLANES_V2, SCALARS_V2)}


def _ranks(keys: dict[int, tuple]) -> dict[int, float]:
    """Each option's place among ``keys`` (best first), as 0, -0.5, -1 ... (at least -3)."""
    order = sorted(keys, key=lambda a: (keys[a], -a), reverse=True)
    return {a: max(-3.0, -0.5 * i) for i, a in enumerate(order)}


def _empty() -> np.ndarray:
    return np.full(NUM_TYPES, FLOOR, dtype=np.float32)


def _discard_planes(strong: KnockStrongAgent, hand: list[int], live: list[int], unseen: int,
                    parts: bool) -> list[np.ndarray]:  # fmt: skip
    """``discard_gap`` (and with ``parts`` the three planes of ``PARTS``) of ``hand``."""
    work = list(hand)
    split = []
    for c in range(NUM_TYPES):
        if work[c]:
            work[c] -= 1
            split.append((c, cost_parts(work, live, unseen)))
            work[c] += 1
    costs = [(c, strong.weigh(*p)) for c, p in split]
    planes = [gap_plane(costs, higher_is_better=False)]
    if parts:
        more = [_empty() for _ in PARTS]
        for c, (dead, ready, saving) in split:
            more[0][c] = dead / 100.0
            more[1][c] = float(ready)
            more[2][c] = saving / 10.0
        planes += more
    return planes


def _buy(view: object, strong: KnockStrongAgent, scalars: dict[str, float]) -> None:
    cost = view.buy_cost
    players_in = view.players_in
    scalars["buy_offered"] = 1.0
    scalars["pot"] = view.pot / view.stake / 10.0
    scalars["buy_cost"] = cost / view.stake / 10.0
    scalars["players_in"] = players_in / view.num_players
    scalars["pot_per_cost"] = signed(math.log(max(view.pot, 1) / (cost * players_in)))
    scalars["buy_back_total"] = (view.buy_back_total or 0) / 100.0
    scalars["greedy_buys"] = float(KnockGreedyAgent.buy_pays(view))
    scalars["strong_buys"] = float(strong.buy_pays(view))


def _start(view: object, strong: KnockStrongAgent, legal: list[int], hand: list[int],
           live: list[int], unseen: int, scalars: dict[str, float],
           parts: bool) -> list[np.ndarray] | None:  # fmt: skip
    words = {a: announcement_score(WORDS[a], hand, view.stake) for a in legal if a in WORDS}
    for a, rank in _ranks(words).items():
        scalars[f"{WORDS[a]}_rank"] = rank
    top = view.discard_top
    if TAKE not in legal or top is None:
        return None
    with_top = list(hand)
    with_top[top] += 1
    scalars["take_legal"] = 1.0
    announces = rummy_discards(with_top) or color_discards(with_top)
    scalars["take_announces"] = float(bool(announces or continental_discards(with_top)))
    planes = _discard_planes(strong, with_top, live, unseen, parts)
    # the cheapest discard's cost (the plane's 0), as ``strong.best_discard`` finds it
    _card, after = strong.best_discard(with_top, live, unseen)
    scalars["take_gain"] = signed((strong.cost(hand, live, unseen) - after) / 10.0)
    return planes


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


def _hand_scalars(
    names: Sequence[str], strong: Any, hand: list[int], live: list[int], unseen: int, parts: bool
) -> dict[str, float]:
    """The scalars every position has: the unseen count and the hand's cost (its deadwood; with
    ``parts``, how ready it is and what a knock saves); the announcement ranks at the floor."""
    scalars = dict.fromkeys(names, 0.0)
    for word in WORDS.values():
        scalars[f"{word}_rank"] = FLOOR
    scalars["unseen"] = unseen / 100.0
    if sum(hand):
        dead, ready, saving = cost_parts(hand, live, unseen)
        scalars["cost"] = strong.weigh(dead, ready, saving) / 100.0
        scalars["deadwood"] = dead / 100.0
        if parts:
            scalars["ready"] = float(ready)
            scalars["saving"] = saving / 10.0
    return scalars


def features(view: object, version: int = 1) -> np.ndarray:
    """The ``knock_v{version}`` features of the seat's view (``FLOOR`` planes and zeros where it
    has no decision)."""
    if version not in VERSIONS:
        raise ValueError(f"version={version!r}: knock features are versions 1 and 2")
    strong = _STRONG if version == 1 else _STRONG_V2
    parts = version >= 2
    names = VERSIONS[version][1]
    legal = list(view.legal_actions)
    live, unseen = live_counts(view)
    hand = list(view.hand)
    scalars = _hand_scalars(names, strong, hand, live, unseen, parts)
    discard = [_empty() for _ in range(1 + len(PARTS) * parts)]
    announce = [_empty() for _ in KINDS]
    if legal and view.phase == "buy":
        if BUY in legal:
            _buy(view, strong, scalars)
    elif legal and view.phase == "draw":
        discard = _start(view, strong, legal, hand, live, unseen, scalars, parts) or discard
    elif legal:
        discard = _discard_planes(strong, hand, live, unseen, parts)
        announce = _announce_planes(view, legal)
    planes = [discard[0], *announce, np.asarray(live, dtype=np.float32) / 2.0, *discard[1:]]
    return np.concatenate([*planes, np.array([scalars[k] for k in names], dtype=np.float32)])
