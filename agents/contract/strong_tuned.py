"""``strong@v2``: ``strong@v1`` with its feeding, danger and timing judgements reworked.

It subclasses ``agents.contract.strong.StrongAgent`` and shares every plan, contract and lay-down function
with it (``make_plan``, ``best_contract``, ``has_contract``); only the judgements below change,
each weighted by a constant of ``Params`` so they can be tuned together (``agents.train.tune_strong``):

* **Feed sign once down.** v1 subtracts the feed penalty from the value it *minimises* when it is
  down, so a card that feeds the next player became more likely to be thrown. v2 adds it.
* **Whole-table feed model.** Any seat not yet down may claim a declined discard, so every such
  seat counts (``feed_next`` for the next seat, which may also take it, ``feed_other`` for the
  rest); a next seat already down is fed by a card it can lay off (``feed_down``).
* **Inference from discards and declines.** A card related (same rank, or same suit nearby) to a
  card that a seat discarded or declined this round (the engine's public log) is less wanted by
  that seat: its feed interest falls by ``safe_weight``.
* **Danger.** When an opponent is down with at most ``danger_cards`` cards, the round may end at
  any turn: the points in hand weigh more (``danger_points_up`` before laying down,
  ``danger_points_down`` after), so the dearest spare cards go first.
* **Lay-down timing and claims.** v1's fixed thresholds become constants: the points left that
  make it lay down at once (``laydown_points``), the turn (``laydown_turns`` x players) and stock
  size (``laydown_stock``) after which it stops waiting, the opponent hand size that counts as
  short (``short_hand``); the gain a take or claim must bring (``take_gain``), how long a hand
  may be to claim (``claim_long``) and how low the stock may be (``claim_stock``).

``Params()`` are the tuned values (see docs/strength.md for how they were found); ``Params.v1()``
reproduces v1's constants with only the feed sign fixed, a reference point for ablations.
``make_agent("strong@v2")`` is frozen at the tuned values.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields, replace

from agents.contract.handtools import (
    contract_bits,
    partner_table,
    shown_by_seat,
    unseen_counts,
)
from agents.contract.strong import StrongAgent
from agents.contract.view import PlayerView
from continental_env.cards import JOKER, NUM_TYPES
from continental_env.contract.game import DISCARD_BASE
from continental_env.melds import best_contract, can_fit


@dataclass(frozen=True)
class Params:
    """The constants of ``strong@v2`` (defaults: the tuned values).

    The defaults are the CMA-ES mean after 4 generations of ``agents.train.tune_strong`` (seed 7301,
    16 common deals, popsize 8; ``results/strength_tune_v2.json``), rounded to two decimals.
    The hand-set starting point of the search is ``HAND_SET``.
    """

    feed_next: float = 0.73  # penalty weight of the next seat's interest in a card
    feed_other: float = 0.35  # ... of any other seat not down (it may claim the card)
    feed_down: float = 3.55  # a card the next seat, already down, could lay off
    feed_scale_down: float = 1.0  # weight of feeding once down (v1: -1, the sign defect)
    safe_weight: float = 0.87  # interest removed per related card the seat discarded or declined
    danger_cards: float = 2.56  # an opponent down with at most this many cards is a danger
    danger_points_up: float = 0.86  # extra point weight before laying down, in danger
    danger_points_down: float = 0.83  # extra point weight once down, in danger
    point_base: float = 0.15  # point weight of a fresh round (before laying down)
    point_age: float = 0.35  # ... added as the round ages
    laydown_points: float = 10.92  # lay down at once when this many points would stay in hand
    laydown_turns: float = 2.97  # stop waiting after this many turns per player
    laydown_stock: float = 20.0  # ... or when the stock is this low
    short_hand: float = 5.49  # an opponent with at most this many cards: lay down now
    take_gain: float = 0.57  # plan cost a take or claim must save
    claim_long: float = 2.0  # claim only with at most contract cards + this many in hand
    claim_stock: float = 4.0  # claim only with more than 2 x players + this many in the stock

    @classmethod
    def v1(cls) -> Params:
        """v1's constants, the feed sign fixed and the new judgements off."""
        return cls(
            feed_next=2.0, feed_other=0.0, feed_down=3.0, safe_weight=0.0, danger_cards=3.0,
            danger_points_up=0.0, danger_points_down=0.0, laydown_points=25.0,
            laydown_turns=2.0, short_hand=4.0, take_gain=0.5,
        )  # fmt: skip

    def to_dict(self) -> dict[str, float]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, float]) -> Params:
        """Params from a dict; ValueError naming an unknown key."""
        known = {f.name for f in fields(cls)}
        bad = sorted(set(data) - known)
        if bad:
            raise ValueError(f"unknown strong@v2 parameters: {', '.join(bad)}")
        return replace(cls(), **{k: float(v) for k, v in data.items()})


# The hand-set constants the tuning started from (``agents.train.tune_strong``).
HAND_SET = Params(
    feed_next=2.0, feed_other=1.0, feed_down=3.0, safe_weight=0.5, danger_cards=3.0,
    danger_points_up=0.3, danger_points_down=0.5, laydown_points=25.0, laydown_turns=2.0,
    short_hand=4.0, take_gain=0.5,
)  # fmt: skip


class StrongV2Agent(StrongAgent):
    """``strong@v1`` plus a whole-table feed model, danger, inference and tunable timing."""

    name = "strong@v2"

    def __init__(self, seed: int | random.Random | None = None, params: Params | None = None):
        super().__init__(seed)
        self.params = params or Params()

    # v1's take and claim decisions (``StrongAgent._draw``, ``_claim``) with tuned thresholds.

    @property
    def take_gain(self) -> float:  # type: ignore[override]
        return self.params.take_gain

    @property
    def claim_long(self) -> float:  # type: ignore[override]
        return self.params.claim_long

    @property
    def claim_stock(self) -> float:  # type: ignore[override]
        return self.params.claim_stock

    # ------------------------------------------------------------------ play

    def _lay_down_now(self, view: PlayerView) -> bool:
        seat = view.seat
        p = self.params
        trios, runs = view.contract
        arrangement = best_contract(view.hand, trios, runs, view.rules)
        if arrangement is None:
            return False
        left = list(view.hand)
        for meld in arrangement:
            for c in meld.cards:
                left[c] -= 1
        left_cards = sum(left)
        left_points = sum(n * view.points[c] for c, n in enumerate(left) if n)
        others_down = any(d for s, d in enumerate(view.laid_down) if s != seat)
        short = any(n <= p.short_hand for s, n in enumerate(view.hand_sizes) if s != seat)
        late = view.turn >= p.laydown_turns * view.num_players or view.stock_size < p.laydown_stock
        return left_cards <= 1 or others_down or short or late or left_points >= p.laydown_points

    def _danger(self, view: PlayerView) -> bool:
        """Whether an opponent is down with few cards: the round may end at any turn."""
        limit = self.params.danger_cards
        return any(
            view.laid_down[s] and view.hand_sizes[s] <= limit
            for s in range(view.num_players)
            if s != view.seat
        )

    def _discard_down(self, view: PlayerView, discards: list[int]) -> int:
        pts = view.points
        unseen = unseen_counts(view)
        feed = self._feed_penalties(view)
        p = self.params
        point_weight = 0.5 + (p.danger_points_down if self._danger(view) else 0.0)
        scale = p.feed_scale_down

        def keep_value(c: int) -> float:
            # Chances that c becomes a lay-off; minus its points; feeding makes it worth keeping.
            prospect = self._layoff_prospect(view, c, unseen)
            return prospect * 4.0 - pts[c] * point_weight + scale * feed[c]

        return DISCARD_BASE + min(
            (a - DISCARD_BASE for a in discards), key=lambda c: (keep_value(c), c)
        )

    def _discard_up(self, view: PlayerView, discards: list[int]) -> int:
        hand = view.hand
        p = self.params
        unseen = unseen_counts(view)
        plan = self._plan(view, hand, unseen)
        feed = self._feed_penalties(view)
        cards = [a - DISCARD_BASE for a in discards]
        naturals = [c for c in cards if c != JOKER] or cards
        spare = [c for c in naturals if hand[c] > plan.core[c]]
        age = min(1.0, view.turn / (6.0 * view.num_players))
        point_weight = p.point_base + p.point_age * age
        if self._danger(view):
            point_weight += p.danger_points_up
        return self._spare_or_cheapest(view, unseen, feed, naturals, spare, point_weight)

    def _feed_penalties(self, view: PlayerView) -> list[float]:
        """Per card type, how much discarding it would help the seats that may pick it up."""
        p = self.params
        pen = [0.0] * NUM_TYPES
        me = view.seat
        n = view.num_players
        table = partner_table(view.rules)
        bits = contract_bits(view.contract)
        shown = shown_by_seat(view.public_log, view.num_players)
        held = [c for c in range(NUM_TYPES) if view.hand[c]]
        for k in range(1, n):
            s = (me + k) % n
            nxt = k == 1
            if view.laid_down[s]:
                if nxt and p.feed_down:
                    _add_table_fits(view, held, pen, p.feed_down)
                continue
            weight = p.feed_next if nxt else p.feed_other
            if not weight:
                continue
            known = view.known[s]
            gave = shown[s] if shown is not None else None
            for c in held:
                pen[c] += weight * self._interest(c, table[c], known, gave, bits)
        return pen

    def _interest(
        self, c: int, row: Sequence[int], known: Sequence[int], gave: list[int] | None, bits: int
    ) -> float:
        """How much a seat not laid down wants card ``c``: 1 when it is known to hold a partner
        of ``c`` for the contract, less ``safe_weight`` per related card it discarded or
        declined this round (at most two counted; ``gave`` None: no such log)."""
        p = self.params
        interest = 1.0 if any(known[d] and row[d] & bits for d in range(NUM_TYPES)) else 0.0
        if gave is not None and p.safe_weight and c != JOKER:
            related = sum(gave[d] for d in range(NUM_TYPES - 1) if d == c or row[d] & bits)
            interest -= p.safe_weight * min(related, 2)
        return interest


def _add_table_fits(view: PlayerView, held: list[int], pen: list[float], weight: float) -> None:
    """Add ``weight`` to the penalty of each held card that fits a meld on the table."""
    rules = view.rules
    for c in held:
        if any(can_fit(m, c, rules) for m in view.table):
            pen[c] += weight


def make_variant(spec: str, seed: int | None) -> StrongV2Agent:
    """``strong-v2:K=V[:K=V...]``: v2 with some constants overridden (not a frozen version).

    ``strong-v2:v1:...`` starts from v1's constants (``Params.v1()``, the feed sign fixed)
    instead of v2's; e.g. ``strong-v2:v1:feed_other=1`` adds only the whole-table feed model.
    """
    parts = spec.split(":")
    if parts[0] != "strong-v2" or len(parts) < 2:
        raise ValueError(f"variant {spec!r}: expected strong-v2:KEY=VALUE[:KEY=VALUE...]")
    base = Params()
    if parts[1] == "v1":
        base, parts = Params.v1(), parts[1:]
    values: dict[str, float] = {}
    for part in parts[1:]:
        key, eq, value = part.partition("=")
        try:
            if not eq:
                raise ValueError(part)
            values[key] = float(value)
        except ValueError:
            raise ValueError(f"variant {spec!r}: {part!r} is not KEY=NUMBER") from None
    Params.from_dict(values)  # names an unknown key
    bot = StrongV2Agent(seed, replace(base, **values))
    bot.name = spec
    return bot


__all__ = ["HAND_SET", "Params", "StrongV2Agent", "make_variant"]
