"""Every buy-back decision of an evaluation's knock deals, replayed: who decided, the pot, the
cost, the players still in, the decision, and each game's final chips.

    python scripts/knock_buybacks.py --seed 24201 --deals 3 --agents strong,greedy
"""

from __future__ import annotations

import argparse

from agents.evaluate import derive_seed, lineup, rotations
from agents.games import game_spec
from continental_env.knock.game import BUY


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, required=True, help="the evaluation's --seed")
    parser.add_argument("--deals", type=int, default=3)
    parser.add_argument("--agents", default="strong,greedy")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args(argv)
    spec = game_spec("knock")
    counts: dict[str, list[int]] = {}
    for deal in range(args.deals):
        for k, names in enumerate(rotations(lineup(args.agents.split(","), args.players))):
            state = spec.new_game(args.players, derive_seed(args.seed, "deal", deal), {})
            bots = [spec.make_agent(n, derive_seed(args.seed, "agent", deal, k, s))
                    for s, n in enumerate(names)]  # fmt: skip
            while not state.is_over:
                seat = state.actor
                view = spec.view(state, seat)
                action = bots[seat].act(view)
                if view.phase == "buy":
                    seen = counts.setdefault(names[seat], [0, 0])
                    seen[0] += 1
                    seen[1] += action == BUY
                    print(f"deal {deal} seating {k}: {names[seat]} (seat {seat}) pot {view.pot} "
                          f"cost {view.buy_cost} players in {view.players_in}: "
                          f"{'buy' if action == BUY else 'pass'}")  # fmt: skip
                state.apply(action)
            final = spec.final_scores(state)
            print(f"deal {deal} seating {k}: final chips "
                  + ", ".join(f"{n} {c:+d}" for n, c in zip(names, final, strict=True)))  # fmt: skip
    for name, (offers, buys) in counts.items():
        print(f"{name}: bought back {buys} of {offers} times offered")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
