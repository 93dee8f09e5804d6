"""The derived features of ``fifteen_v1`` (``agents.side_features``), from a ``FifteenView``.

Card-indexed planes (``NUM_TYPES`` wide, card id order):

* ``discard_gap``: the value of the hand after discarding one copy of each card, as
  ``agents.fifteen.strong`` values hands (covered cards, outs on live cards, near cards) over its
  shortlist of discards, as a gap to the best (``side_features.gap``: 0 for the best); ``FLOOR``
  for cards not held or not on the shortlist. After drawing the hand is the 16 cards held; before
  drawing it is the hand with the up-card taken (what ``take`` would lead to).
* ``out_gap``: after drawing, for each card whose discard goes out, the payment of going out
  with it as a gap to the largest payment (in chips / 10); ``FLOOR`` elsewhere.
* ``live``: the live copies of each card type (``strong.live_counts``), halved.

Scalars: whether ``out`` is offered now, whether going out with a discard is offered, whether
``take`` is legal, whether taking the up-card lets the hand go out, the value of the best hand
after taking the up-card minus the value of the hand held (``side_features.signed``), the hand's
value / 100, covered cards / 15 and the unseen cards / 100.

Everything comes from the view's public fields; ``tests/test_side_features.py`` checks that
hidden cards changed change nothing (and that features read from the true hidden hand would).
"""

from __future__ import annotations

import numpy as np

from agents.fifteen.greedy import covered
from agents.fifteen.strong import FifteenStrongAgent, live_counts
from agents.side_features import FLOOR, gap, gap_plane, signed
from continental_env.cards import NUM_TYPES
from continental_env.fifteen.game import OUT, OUT_BASE, TAKE, payment
from continental_env.melds import going_out_discards

PLANES = ("discard_gap", "out_gap", "live")
SCALARS = (
    "out_now",
    "out_with_discard",
    "take_legal",
    "take_goes_out",
    "take_gain",
    "value",
    "covered",
    "unseen",
)
_STRONG = FifteenStrongAgent()


def _discard_plane(hand: list[int], live: list[int], unseen: int) -> np.ndarray:
    return gap_plane(_STRONG.discard_values(hand, live, unseen), higher_is_better=True)


def _out_plane(view: object, legal: list[int]) -> np.ndarray:
    plane = np.full(NUM_TYPES, FLOOR, dtype=np.float32)
    pays = {}
    for a in legal:
        if a >= OUT_BASE:
            rest = list(view.hand)
            rest[a - OUT_BASE] -= 1
            cards = [c for c in range(NUM_TYPES) for _ in range(rest[c])]
            pays[a - OUT_BASE] = payment(cards, first_turn=view.first_turn, drew=True)["total"]
    if pays:
        most = max(pays.values())
        for c, pay in pays.items():
            plane[c] = gap((most - pay) / 10.0)
    return plane


def features(view: object) -> np.ndarray:
    """The features of the seat's view (zeros but ``live`` when it has no decision)."""
    legal = list(view.legal_actions)
    live, unseen = live_counts(view)
    hand = list(view.hand)
    value_now = FifteenStrongAgent.value(hand, live, unseen)
    scalars = dict.fromkeys(SCALARS, 0.0)
    scalars.update(value=value_now / 100.0, covered=covered(hand) / 15.0, unseen=unseen / 100.0)
    discard = np.full(NUM_TYPES, FLOOR, dtype=np.float32)
    out = np.full(NUM_TYPES, FLOOR, dtype=np.float32)
    if legal and view.phase == "draw":
        scalars["out_now"] = float(OUT in legal)
        top = view.discard_top
        if TAKE in legal and top is not None:
            with_top = list(hand)
            with_top[top] += 1
            scalars["take_legal"] = 1.0
            scalars["take_goes_out"] = float(bool(going_out_discards(with_top)))
            discard = _discard_plane(with_top, live, unseen)
            _card, after = _STRONG.best_discard(with_top, live, unseen)
            scalars["take_gain"] = signed(after - value_now)
    elif legal:
        scalars["out_with_discard"] = float(any(a >= OUT_BASE for a in legal))
        discard = _discard_plane(hand, live, unseen)
        out = _out_plane(view, legal)
    planes = [discard, out, np.asarray(live, dtype=np.float32) / 2.0]
    return np.concatenate([*planes, np.array([scalars[k] for k in SCALARS], dtype=np.float32)])
