"""Screen variants of the knock ``strong`` bot against three ``greedy`` on the same deals.

Each variant takes one seat against three ``greedy`` in every seating of every deal (the deals
of ``derive_seed(seed, "deal", i)``, as ``continental evaluate`` deals them), so two variants'
per-deal means are paired. Printed per variant: its chips per game and its points relative to
the table (its total minus the others' mean: lower is better), each with a 95 % t interval over
deals, then both as differences from the first variant. A screening tool: a claim comes from
``continental evaluate`` on fresh deals.

A variant is ``name=value`` pairs joined by ``:``: the bot's weights ``ready_bonus``,
``draw_weight``, ``buy_share``, ``no_buy_chance`` (module defaults otherwise), ``horizon=T``
(the draw weight falls linearly to 0 over the hand's first T discards), ``late=P`` (draw weight
0 once the seat's total is at least P), ``few=N`` (draw weight 0 once at most N players are
in), ``feed=W`` (a discard that makes a lay-in-waiting with a card the next seat took from the
pile costs W x 10 more; a joker W x 20) and ``buy=`` one of
``strong`` (the bot's rule), ``greedy`` (cost x players in <= pot), ``half`` (2 x cost x players
in <= pot), ``never``. ``default`` is the bot as shipped.

    python scripts/knock_strong_screen.py --seed 24603 --deals 120 --jobs 2 \\
        draw_weight=1.5:buy=half draw_weight=1.5:horizon=32:buy=half draw_weight=0.5:buy=half
    python scripts/knock_strong_screen.py --seed 24602 --deals 100 --max-hands 1 \\
        draw_weight=1.5 draw_weight=0 draw_weight=0.5 draw_weight=1
"""

from __future__ import annotations

import argparse
from multiprocessing import Pool
from typing import Any

import numpy as np

from agents.evaluate import derive_seed, lineup, rotations
from agents.games import game_spec
from agents.knock.strong import KnockStrongAgent
from agents.knock.view import KnockView
from continental_env.cards import JOKER, NUM_NATURALS

WEIGHTS = ("ready_bonus", "draw_weight", "buy_share", "no_buy_chance")
BUY_RULES = {
    "greedy": lambda v: v.buy_cost * v.players_in <= v.pot,
    "half": lambda v: 2 * v.buy_cost * v.players_in <= v.pot,
    "never": lambda v: False,
}


def parse_variant(text: str) -> dict[str, Any]:
    """The keyword settings of a variant string; ValueError naming a bad part."""
    out: dict[str, Any] = {}
    if text == "default":
        return out
    for part in text.split(":"):
        name, _, value = part.partition("=")
        if name == "buy":
            if value != "strong" and value not in BUY_RULES:
                raise ValueError(f"{part!r}: buy must be strong, {', '.join(BUY_RULES)}")
            out[name] = value
        elif name in (*WEIGHTS, "horizon", "feed", "late", "few"):
            try:
                out[name] = float(value)
            except ValueError:
                raise ValueError(f"{part!r}: {name} needs a number") from None
        else:
            raise ValueError(
                f"{part!r}: unknown setting (take {', '.join(WEIGHTS)}, horizon, feed, late, few, buy)"
            )
    return out


class Variant(KnockStrongAgent):
    """``strong`` with the variant's weights, draw-weight horizon and buy-back rule."""

    def __init__(self, text: str) -> None:
        settings = parse_variant(text)
        self.horizon = settings.pop("horizon", None)
        self.feed = settings.pop("feed", 0.0)
        self.late = settings.pop("late", None)
        self.few = settings.pop("few", None)
        self.next_known: list[int] | None = None
        self.buy_rule = BUY_RULES.get(settings.pop("buy", "strong"))
        super().__init__(0, **settings)
        self.base_weight = self.draw_weight

    def buy_pays(self, view: KnockView) -> bool:
        return self.buy_rule(view) if self.buy_rule else super().buy_pays(view)

    def act(self, view: KnockView) -> int:
        self.draw_weight = self.base_weight
        if self.horizon:
            self.draw_weight *= max(0.0, 1 - view.turn / self.horizon)
        if self.late is not None and view.scores[view.seat] >= self.late:
            self.draw_weight = 0.0
        if self.few is not None and view.players_in <= self.few:
            self.draw_weight = 0.0
        self.next_known = None
        if self.feed:
            nxt = next(
                s
                for k in range(1, view.num_players + 1)
                if view.in_game[s := (view.seat + k) % view.num_players]
            )
            self.next_known = [c for c in range(NUM_NATURALS) if view.known[nxt][c]]
        return super().act(view)

    def discard_costs(
        self, hand: list[int], live: list[int], unseen: int
    ) -> list[tuple[int, float]]:
        costs = super().discard_costs(hand, live, unseen)
        if not self.next_known:
            return costs
        return [(c, v + self.feed * feeds(c, self.next_known)) for c, v in costs]


def feeds(card: int, known: list[int]) -> float:
    """Deadwood a discard may save the next seat: a card that makes a lay-in-waiting with a card
    it took from the pile (same rank, or same suit one or two ranks apart)."""
    if card == JOKER:
        return 20.0
    for k in known:
        if k % 13 == card % 13 or (k // 13 == card // 13 and 0 < abs(k % 13 - card % 13) <= 2):
            return 10.0
    return 0.0


def play_deal(task: tuple[int, int, str, int | None]) -> tuple[int, str, float, float]:
    """(deal, variant, mean relative points, mean chips) over the deal's seatings."""
    seed, deal, text, max_hands = task
    spec = game_spec("knock")
    options = {} if max_hands is None else {"max_hands": max_hands}
    points, chips = [], []
    for names in rotations(lineup(["variant", "greedy"], 4)):
        state = spec.new_game(4, derive_seed(seed, "deal", deal), options)
        bots = [Variant(text) if n == "variant" else spec.make_agent("greedy", 0) for n in names]
        while not state.is_over:
            seat = state.actor
            state.apply(bots[seat].act(spec.view(state, seat)))
        me = names.index("variant")
        totals = list(state.scores)
        points.append(totals[me] - (sum(totals) - totals[me]) / 3)
        chips.append(spec.final_scores(state)[me])
    return deal, text, float(np.mean(points)), float(np.mean(chips))


def half_width(x: np.ndarray) -> float:
    return float(1.96 * x.std(ddof=1) / np.sqrt(len(x)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("variants", nargs="+", help="variant strings (module docstring)")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--max-hands", type=int, default=None, help="1: one-hand games")
    args = parser.parse_args(argv)
    for text in args.variants:
        try:
            parse_variant(text)
        except ValueError as err:
            parser.error(str(err))
    tasks = [(args.seed, d, v, args.max_hands) for d in range(args.deals) for v in args.variants]
    results: dict[str, dict[int, tuple[float, float]]] = {v: {} for v in args.variants}
    with Pool(args.jobs) as pool:
        for deal, text, pts, chp in pool.imap_unordered(play_deal, tasks, chunksize=1):
            results[text][deal] = (pts, chp)
    table = {v: np.array([results[v][d] for d in range(args.deals)]) for v in args.variants}
    base = table[args.variants[0]]
    for text, values in table.items():
        pts, chp = values[:, 0], values[:, 1]
        line = (f"{text:40s} points {pts.mean():+6.2f} ± {half_width(pts):.2f}  "
                f"chips {chp.mean():+7.2f} ± {half_width(chp):.2f}")  # fmt: skip
        if values is not base:
            dp, dc = pts - base[:, 0], chp - base[:, 1]
            line += (f"  | vs first: points {dp.mean():+6.2f} ± {half_width(dp):.2f}, "
                     f"chips {dc.mean():+7.2f} ± {half_width(dc):.2f}")  # fmt: skip
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
