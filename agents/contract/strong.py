"""The ``strong@v1`` bot: plays to win by valuing cards against what is still out there.

This is a frozen version (``make_agent("strong@v1")``; ``tests/test_versions.py`` pins its moves on
recorded games): its decisions never change. Improvements go into a later version that subclasses
it (``agents.contract.strong_tuned``); ``strong`` names the current best (``agents.CURRENT``).

The heart of the bot is a **plan**: the cheapest way to complete the round's contract from the
hand, where a missing card costs more the fewer copies of it are unseen (not in the own hand, the
discard pile, the table, nor known to be in another hand from public pick-ups). A trio slot can be
filled by any suit of its rank, so it is cheap; a run slot needs one exact card; a card whose
copies are all visible elsewhere is nearly dead. Jokers in hand fill the dearest slots. The plan
tries the few cheapest trio ranks and run windows (a window is a suit and ``min_run`` consecutive
ranks, as ``melds.is_valid_meld`` allows them) in every combination the contract asks for, and
keeps the cheapest; the cards it uses (and the cards that would lengthen its runs) are the
hand's *core*. Whether the contract is actually in hand is always asked of ``melds.has_contract``.

Strategy, phase by phase:

* **Draw.** Before laying down: take the top discard if it makes the plan cheaper (it fills a
  missing slot); a joker always. After laying down: take it if it can be laid off on the table.
  Otherwise draw from the stock.
* **Claim.** The claim brings a penalty card and two more cards to get rid of, so it is weighed:
  claim when the card completes the contract; otherwise only when it fills a slot of the plan,
  leaves at most ``CLAIM_MAX_MISSING`` slots to fill, the hand is not already long, and the stock
  is not nearly out (late in a round the extra cards are likely to stay in hand as points).
* **Play.** Close as soon as it can. Lay the contract down when it is in hand, timed: at once when
  it can then close, when an opponent is already down, when the round is old or the stock low, or
  when the points left after laying down are high (dump them early); otherwise it waits at most a
  couple of turns while nobody is down, keeping its melds off the table so opponents cannot
  build on them. Once down, swap a joker off the table when it holds its natural (the joker is
  then laid off: one card fewer), and lay off every card it can.
* **Discard.** Jokers are kept. Before laying down it discards a card outside the core, the one
  with the lowest value: a card's value grows with its partners in hand, the unseen copies that
  could complete its meld, and (lightly) whether it fits the table for a later lay-off; it falls
  with its points, the more so as the round ages. Cards the next player is known to collect (same
  rank or nearby same-suit as its known pick-ups) or could lay off at once (when it is down) are
  penalised, so it avoids feeding them. When every card is core, it gives up the one whose loss
  raises the plan's cost least. Once down, it keeps the cards most likely to become lay-offs and
  throws the highest points.

Everything comes from the seat's ``PlayerView``; the per-state work (unseen counts, plans) is
cached by hand and unseen counts, so a decision costs well under a millisecond on average.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations, combinations_with_replacement

from agents.bots.base import SeededAgent
from agents.contract.handtools import (
    RUN_BIT,
    TRIO_BIT,
    contract_bits,
    fits_table,
    partner_table,
    unseen_counts,
)
from agents.contract.view import PlayerView
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
from continental_env.contract.game import CLAIM, CLOSE, DISCARD_BASE, DRAW, LAYDOWN, PASS, TAKE
from continental_env.melds import (
    HIGH,
    LOW,
    RUN,
    Meld,
    best_contract,
    can_fit,
    end_card,
    extend_run,
    has_contract,
    natural_layoff_end,
    run_spans,
)
from continental_env.rules import RuleConfig

CLAIM_MAX_MISSING = 1  # claim a card that merely helps only when at most this many slots remain
EXTRA_TRIO_CANDIDATES = 3
EXTRA_RUN_CANDIDATES = 3


def _slot_cost(unseen: float) -> float:
    """Cost of one missing card whose useful copies number ``unseen`` (1 when plentiful)."""
    return 1.0 + 1.5 / (unseen + 0.25)


@lru_cache(maxsize=16)
def _run_windows(rules: RuleConfig) -> tuple[tuple[int, ...], ...]:
    """Every run of exactly ``min_run`` naturals the rules allow (``melds.run_spans``), as card
    tuples."""
    spans = run_spans(rules)
    return tuple(
        sorted({tuple(make_card(suit, r) for r in span) for suit in range(4) for span in spans})
    )


class Plan:
    """The cheapest route found to the contract: its cost and the cards it keeps."""

    __slots__ = ("core", "cost", "missing")

    def __init__(self, cost: float, missing: int, core: tuple[int, ...]) -> None:
        self.cost = cost  # weighted missing slots after jokers
        self.missing = missing  # missing slots after jokers
        self.core = core  # counts per card type the plan keeps


@lru_cache(maxsize=100_000)
def make_plan(
    hand: tuple[int, ...], unseen: tuple[int, ...], trios: int, runs: int, rules: RuleConfig
) -> Plan:
    """The cheapest plan for the contract from ``hand`` given the ``unseen`` copies.

    Runs the compiled kernel when it is built (``continental_env.kernels``), else
    ``make_plan_reference``; both return the same plan, ties and float bits included.
    """
    native = kernels.native
    if native is not None:
        cost, missing, core = native.make_plan(
            hand, unseen, trios, runs, rules.min_run, rules.ace_wraparound
        )
        return Plan(cost, missing, core)
    return make_plan_reference(hand, unseen, trios, runs, rules)


def _trio_candidates(
    hand: tuple[int, ...], unseen: tuple[int, ...], trios: int, joker_help: float
) -> list[tuple[float, int, float]]:
    """Every rank as a trio candidate, by the cost of the slots it still needs; the cheapest few."""
    if not trios:
        return []
    trio_cands = []
    for r in range(NUM_RANKS):
        have = sum(hand[c] for c in RANK_CARDS[r])
        left = sum(unseen[c] for c in RANK_CARDS[r])
        slot = _slot_cost(left + joker_help)
        need = max(0, 3 - have)
        trio_cands.append((need * slot - 0.01 * have, r, slot))
    trio_cands.sort()
    return trio_cands[: trios + EXTRA_TRIO_CANDIDATES]


def _run_candidates(
    hand: tuple[int, ...], slot_of: list[float], runs: int, rules: RuleConfig
) -> list[tuple[float, tuple[int, ...]]]:
    """Run windows holding a card of the hand (all windows if too few), the cheapest few."""
    if not runs:
        return []
    run_cands = []
    for cards in _run_windows(rules):
        held = 0
        cost = 0.0
        for c in cards:
            if hand[c]:
                held += 1
            else:
                cost += slot_of[c]
        if held:
            run_cands.append((cost, cards))
    if len(run_cands) < runs:
        for cards in _run_windows(rules):
            run_cands.append((sum(slot_of[c] for c in cards), cards))
    run_cands.sort()
    return run_cands[: runs + EXTRA_RUN_CANDIDATES]


def _combo_bounds(
    run_combos: list[tuple],
    run_cands: list,
    slot_of: list[float],
    hand: tuple[int, ...],
    jokers: int,
) -> list[float]:
    """A lower bound on each run combination's cost (see ``make_plan_reference``)."""
    dearest = {cards: max([slot_of[c] for c in cards if not hand[c]], default=0.0)
               for _cost, cards in run_cands}  # fmt: skip
    bounds = []
    for run_combo in run_combos:
        bound = 0.0
        for window_cost, _cards in run_combo:
            bound += window_cost
        if jokers and run_combo:
            bound -= jokers * max(dearest[cards] for _cost, cards in run_combo)
        bounds.append(bound)
    return bounds


def _run_slots(
    run_combo: tuple, hand: tuple[int, ...], unseen: tuple[int, ...], slot_of: list[float],
    joker_help: float,
) -> tuple[list[float], dict[int, int]]:  # fmt: skip
    """The missing slots of a run combination and the hand's cards it uses."""
    need: dict[int, int] = {}
    slots: list[float] = []
    for _cost, cards in run_combo:
        for c in cards:
            k = need.get(c, 0)
            need[c] = k + 1
            if k >= hand[c]:
                extra = k - hand[c]  # copies of c this combination misses already
                slots.append(
                    slot_of[c] if extra == 0 else _slot_cost(max(0, unseen[c] - extra) + joker_help)
                )
    used = {c: min(k, hand[c]) for c, k in need.items() if hand[c]}
    return slots, used


def _trio_slots(trio_cands: list, hand: tuple[int, ...], used: dict[int, int]) -> list[list[float]]:
    """Each trio candidate's missing slots given the cards the runs use."""
    trio_slots = []
    for _cost, r, slot in trio_cands:
        have = 0
        for c in RANK_CARDS[r]:
            left = hand[c] - used.get(c, 0)
            if left > 0:
                have += left
        trio_slots.append([slot] * max(0, 3 - have))
    return trio_slots


def _plan_core(
    hand: tuple[int, ...], used: dict[int, int], run_combo: tuple, trio_combo: tuple,
    trio_cands: list, rules: RuleConfig,
) -> tuple[int, ...]:  # fmt: skip
    """The cards the plan keeps: those its melds use, the jokers, and run extensions held."""
    used = dict(used)
    for t in trio_combo:
        r = trio_cands[t][1]
        for c in (r, 13 + r, 26 + r, 39 + r):
            left = hand[c] - used.get(c, 0)
            if left > 0:
                used[c] = used.get(c, 0) + left
    core = [0] * NUM_TYPES
    for c, k in used.items():
        core[c] = k
    core[JOKER] = hand[JOKER]
    # Cards that would lengthen a planned run are core too: they go down with it. The meld
    # validator says which card extends each end (no wrap past the ace unless the rules allow).
    for _cost, cards in run_combo:
        for end in (HIGH, LOW):
            run = Meld.build(0, RUN, list(cards), rules)
            while (c := end_card(run, end, rules)) is not None:
                if hand[c] <= core[c] or c in cards:
                    break
                core[c] += 1
                extend_run(run, c, end, rules)
    return tuple(core)


def make_plan_reference(
    hand: tuple[int, ...], unseen: tuple[int, ...], trios: int, runs: int, rules: RuleConfig
) -> Plan:
    """``make_plan`` in pure Python: the readable definition the compiled kernel follows."""
    jokers = hand[JOKER]
    joker_help = 0.5 * unseen[JOKER]
    slot_of = [_slot_cost(u + joker_help) for u in unseen]  # one missing copy of each card
    trio_cands = _trio_candidates(hand, unseen, trios, joker_help)
    run_cands = _run_candidates(hand, slot_of, runs, rules)
    trio_combos = list(combinations(range(len(trio_cands)), trios)) if trios else [()]
    run_combos = list(combinations_with_replacement(run_cands, runs)) if runs else [()]
    # The plan is the cheapest (run, trio) combination, the first in enumeration order among
    # equal costs. Run combinations are visited from the lowest lower bound on their cost up,
    # and the visit stops once the bound exceeds the best cost: every slot a window misses alone
    # is missed in the combination too (at the same or a higher cost), trio slots only add, and
    # the jokers fill at most the dearest slots.
    bounds = _combo_bounds(run_combos, run_cands, slot_of, hand, jokers)
    best: tuple | None = None
    best_key = (0, 0)
    for pos in sorted(range(len(run_combos)), key=bounds.__getitem__):
        if best is not None and bounds[pos] > best[0] + 2e-9:
            break  # this and every later combination cost more than the best
        run_combo = run_combos[pos]
        slots, used = _run_slots(run_combo, hand, unseen, slot_of, joker_help)
        # The ranks of a trio combination differ, so each trio's missing slots depend only on
        # the cards the runs leave: computed once per run combination.
        trio_slots = _trio_slots(trio_cands, hand, used)
        for t_pos, trio_combo in enumerate(trio_combos):
            t_slots = list(slots)
            for t in trio_combo:
                t_slots += trio_slots[t]
            t_slots.sort(reverse=True)
            rest = t_slots[min(jokers, len(t_slots)) :]
            cost = sum(rest)
            key = (pos, t_pos)
            if best is None or cost < best[0] - 1e-9 or (cost <= best[0] + 1e-9 and key < best_key):
                best = (cost, len(rest), used, run_combo, trio_combo)
                best_key = key
    assert best is not None
    cost, missing, used, run_combo, trio_combo = best
    return Plan(cost, missing, _plan_core(hand, used, run_combo, trio_combo, trio_cands, rules))


class StrongAgent(SeededAgent):
    """Plans against the unseen cards, weighs claims, times its lay-down, avoids feeding."""

    name = "strong"
    # The plan cost a take or a claim must save; a claim needs a hand of at most the contract's
    # cards + ``claim_long`` and a stock of more than 2 x players + ``claim_stock`` cards.
    # (``strong@v2`` reads these from its tuned ``Params``.)
    take_gain: float = 0.5
    claim_long: float = 2
    claim_stock: float = 4

    # Deterministic; SeededAgent accepts a seed so every bot is built the same way.

    # ------------------------------------------------------------------ protocol

    # ------------------------------------------------------------------ helpers

    @staticmethod
    def _plan(view: PlayerView, hand: list[int] | tuple[int, ...], unseen: list[int]) -> Plan:
        trios, runs = view.contract
        return make_plan(tuple(hand), tuple(unseen), trios, runs, view.rules)

    # ------------------------------------------------------------------ draw and claim

    def _draw(self, view: PlayerView, legal: list[int]) -> int:
        top = view.discard_top
        if TAKE not in legal or top is None:
            return DRAW
        if view.laid_down[view.seat]:
            return TAKE if fits_table(view, top) else DRAW
        if top == JOKER:
            return TAKE
        if not self._related(view, top):
            return DRAW
        unseen = unseen_counts(view)
        now = self._plan(view, view.hand, unseen)
        hand = list(view.hand)
        hand[top] += 1
        after = self._plan(view, hand, unseen)
        return TAKE if after.cost < now.cost - self.take_gain else DRAW

    def _claim(self, view: PlayerView) -> int:
        top = view.discard_top
        if top is None or view.laid_down[view.seat]:
            return PASS
        trios, runs = view.contract
        rules = view.rules
        if has_contract(view.hand, trios, runs, rules):
            return PASS
        hand = list(view.hand)
        hand[top] += 1
        if has_contract(hand, trios, runs, rules):
            return CLAIM
        if top != JOKER and not self._related(view, top):
            return PASS
        if view.hand_size > 3 * trios + rules.min_run * runs + self.claim_long:
            return PASS  # already long: the penalty card would likely stay as points
        if view.stock_size < 2 * view.num_players + self.claim_stock:
            return PASS
        unseen = unseen_counts(view)
        now = self._plan(view, view.hand, unseen)
        after = self._plan(view, hand, unseen)
        if after.cost < now.cost - self.take_gain and after.missing <= CLAIM_MAX_MISSING:
            return CLAIM
        return PASS

    @staticmethod
    def _related(view: PlayerView, card: int) -> bool:
        """Whether ``card`` starts a contract meld with some card in hand."""
        row = partner_table(view.rules)[card]
        bits = contract_bits(view.contract)
        hand = view.hand
        return any(hand[c] and row[c] & bits for c in range(NUM_TYPES))

    # ------------------------------------------------------------------ play

    def _play(self, view: PlayerView, legal: list[int]) -> int:
        if CLOSE in legal:
            return CLOSE
        if LAYDOWN in legal and self._lay_down_now(view):
            return LAYDOWN
        on_table = self._table_move(view, legal)
        if on_table is not None:
            return on_table
        return self._end_turn(view, legal)

    def _table_move(self, view: PlayerView, legal: list[int]) -> int | None:
        """A joker swap when a joker would fit the table, else the best lay-off, else None."""
        layout = view.layout
        swaps = [a for a in legal if layout.swap_base <= a < layout.move_base]
        if swaps and view.hand_size >= 2 and any(can_fit(m, JOKER, view.rules) for m in view.table):
            return swaps[0]
        layoffs = [a for a in legal if layout.layoff_base <= a < layout.swap_base]
        if layoffs:
            return self._pick_layoff(view, layoffs)
        return None

    def _end_turn(self, view: PlayerView, legal: list[int]) -> int:
        """The discard (laid down or not), else a joker move, else the first legal action."""
        layout = view.layout
        moves = [a for a in legal if a >= layout.move_base]
        discards = [a for a in legal if DISCARD_BASE <= a < DISCARD_BASE + NUM_TYPES]
        if not discards:
            return moves[0] if moves else legal[0]
        if view.laid_down[view.seat]:
            return self._discard_down(view, discards)
        return self._discard_up(view, discards)

    def _lay_down_now(self, view: PlayerView) -> bool:
        seat = view.seat
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
        short_hand = any(n <= 4 for s, n in enumerate(view.hand_sizes) if s != seat)
        late = view.turn >= 2 * view.num_players or view.stock_size < 20
        return left_cards <= 1 or others_down or short_hand or late or left_points >= 25

    @staticmethod
    def _pick_layoff(view: PlayerView, layoffs: list[int]) -> int:
        """The lay-off that opens a spot for another card in hand, else the highest points."""
        layout = view.layout
        pts = view.points
        hand = view.hand
        rules = view.rules

        def key(a: int) -> tuple:
            _kind, slot, m = layout.decode(a)
            card = JOKER if slot >= 52 else slot
            meld = view.table[m]
            opens = 0
            if meld.kind == RUN and card != JOKER:
                # The next card beyond the end this card extends, if the hand holds it.
                end = natural_layoff_end(meld, card, rules)
                if end is not None:
                    longer = meld.copy()
                    extend_run(longer, card, end, rules)
                    beyond = end_card(longer, end, rules)
                    opens = 1 if beyond is not None and hand[beyond] and beyond != card else 0
            return (opens, pts[card], -a)

        return max(layoffs, key=key)

    def _discard_down(self, view: PlayerView, discards: list[int]) -> int:
        pts = view.points
        unseen = unseen_counts(view)
        feed = self._feed_penalties(view)

        def keep_value(c: int) -> float:
            # Chances that c becomes a lay-off: copies of the card that would let it fit.
            return self._layoff_prospect(view, c, unseen) * 4.0 - pts[c] * 0.5 - feed[c]

        return DISCARD_BASE + min(
            (a - DISCARD_BASE for a in discards), key=lambda c: (keep_value(c), c)
        )

    @staticmethod
    def _layoff_prospect(view: PlayerView, card: int, unseen: list[int]) -> float:
        """How close ``card`` is to fitting a table meld (1 per card that would open a spot)."""
        if card == JOKER:
            return 10.0
        rules = view.rules
        score = 0.0
        for meld in view.table:
            if meld.kind == RUN and meld.suit == suit_of(card) and not can_fit(meld, card, rules):
                # One card beyond an end: it fits once the card in between is laid off.
                for edge in (HIGH, LOW):
                    between = end_card(meld, edge, rules)
                    if between is None:
                        continue
                    longer = meld.copy()
                    extend_run(longer, between, edge, rules)
                    if end_card(longer, edge, rules) == card:
                        score += min(1.0, 0.5 * unseen[between]) + 0.3 * unseen[JOKER]
            elif can_fit(meld, card, rules):
                score += 2.0
        return score

    def _discard_up(self, view: PlayerView, discards: list[int]) -> int:
        hand = view.hand
        unseen = unseen_counts(view)
        plan = self._plan(view, hand, unseen)
        feed = self._feed_penalties(view)
        cards = [a - DISCARD_BASE for a in discards]
        naturals = [c for c in cards if c != JOKER] or cards
        spare = [c for c in naturals if hand[c] > plan.core[c]]
        age = min(1.0, view.turn / (6.0 * view.num_players))
        point_weight = 0.15 + 0.35 * age
        return self._spare_or_cheapest(view, unseen, feed, naturals, spare, point_weight)

    def _spare_or_cheapest(
        self, view: PlayerView, unseen: tuple[int, ...] | list[int], feed: list[float],
        naturals: list[int], spare: list[int], point_weight: float,
    ) -> int:  # fmt: skip
        """The discard before laying down: the spare card (outside the plan) that builds least
        toward the contract, weighing its points and ``feed``; with no spare card, the one whose
        loss raises the plan's cost least."""
        hand = view.hand
        pts = view.points
        if spare:
            table = partner_table(view.rules)
            bits = contract_bits(view.contract)

            def value(c: int) -> float:
                v = 0.0
                row = table[c]
                for d in range(NUM_TYPES - 1):
                    k = hand[d] - (1 if d == c else 0)
                    if k > 0 and row[d] & bits:
                        if row[d] & TRIO_BIT and bits & TRIO_BIT:
                            left = sum(unseen[x] for x in RANK_CARDS[rank_of(c)])
                            v += 1.0 + 0.15 * left
                        elif row[d] & RUN_BIT:
                            v += 0.8 + 0.3 * unseen[c]
                if view.table and fits_table(view, c):
                    v += 0.7
                return v - point_weight * pts[c] / 2.0 + feed[c]

            return DISCARD_BASE + min(spare, key=lambda c: (value(c), c))
        # Every card is in the plan: give up the one whose loss costs least.
        best = None
        for c in naturals:
            less = list(hand)
            less[c] -= 1
            cost = self._plan(view, less, unseen).cost
            key = (cost + feed[c] * 0.2 - 0.01 * pts[c], c)
            if best is None or key < best[0]:
                best = (key, c)
        assert best is not None
        return DISCARD_BASE + best[1]

    @staticmethod
    def _feed_penalties(view: PlayerView) -> list[float]:
        """Per card type, how much discarding it would help the next player."""
        pen = [0.0] * NUM_TYPES
        nxt = (view.seat + 1) % view.num_players
        rules = view.rules
        if view.laid_down[nxt]:
            for c in range(NUM_TYPES):
                if view.hand[c] and any(can_fit(m, c, rules) for m in view.table):
                    pen[c] += 3.0
            return pen
        known = view.known[nxt]
        if not any(known):
            return pen
        table = partner_table(rules)
        bits = contract_bits(view.contract)
        for c in range(NUM_TYPES):
            if view.hand[c]:
                row = table[c]
                if any(known[d] and row[d] & bits for d in range(NUM_TYPES)):
                    pen[c] += 2.0
        return pen
