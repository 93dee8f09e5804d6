"""Why the contract game keeps more than one contract search: answers and CPU cost side by side.

Records every distinct (hand, contract, rules) a seat not yet down holds at its decisions in
seeded games (``strong`` at every seat, and random play for the long hands), then asks each
search the existence question on every one of them, with the compiled kernels and with the
pure-Python references:

* ``contract_exists`` (``melds.contract``: minimal melds, no arrangement; ``has_contract``'s
  first two steps),
* ``ContractSearch`` with ``first_only`` (the arrangement search stopped at its first find),
* ``hand_analysis`` (``melds.distance``: the distance to the contract, 0 when it goes down).

It checks that the three agree and prints the mean CPU microseconds per call of each (caches
emptied, ``time.process_time_ns``). It also counts how often the lay-down choice
(``best_laydown``) differs from the fewest-points arrangement (``best_contract``).

    python scripts/bench_contract_searches.py --games 2 --random-games 2 \\
        --out results/melds_contract_searches.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from agents.bots.random_agent import RandomAgent
from agents.contract import strong
from agents.contract.view import PlayerView
from continental_env import kernels, melds
from continental_env.contract.game import Game

PRESETS = ("continental", "continental_us", "continental_es")


def record(games: int, random_games: int) -> tuple[list[tuple], list[tuple]]:
    """Distinct (counts, trios, runs, rules) of seats not yet down, and lay-down calls."""
    hands: list[tuple] = []
    laydowns: list[tuple] = []
    for preset in PRESETS:
        for seed in range(games + random_games):
            game = Game.new(preset, 4, seed=seed)
            if seed < games:
                bots = [strong.StrongAgent(s) for s in range(4)]
            else:
                bots = [RandomAgent(seed * 4 + s) for s in range(4)]
            while not game.is_over:
                seat = game.actor
                if not game.state.laid_down[seat]:
                    counts = tuple(game.state.hands[seat])
                    trios, runs = game.contract
                    hands.append((counts, trios, runs, game.rules))
                    if melds.has_contract(counts, trios, runs, game.rules):
                        laydowns.append((counts, trios, runs, game.rules, tuple(game.state.table)))
                game.apply(bots[seat].act(PlayerView(game, seat)))
    return list(dict.fromkeys(hands)), laydowns


def by_exists(counts: tuple, trios: int, runs: int, rules) -> bool:  # type: ignore[no-untyped-def]
    melds.contract_exists.cache_clear()
    return melds.has_contract(counts, trios, runs, rules)


def by_search(counts: tuple, trios: int, runs: int, rules) -> bool:  # type: ignore[no-untyped-def]
    melds.best_arrangement.cache_clear()
    return melds.best_arrangement(counts, trios, runs, rules, True) is not None


def by_distance(counts: tuple, trios: int, runs: int, rules) -> bool:  # type: ignore[no-untyped-def]
    melds.hand_analysis.cache_clear()
    return melds.hand_analysis(counts, trios, runs, rules)[0] == 0


def timed(fn, calls: list[tuple]) -> tuple[list[bool], float]:  # type: ignore[no-untyped-def]
    answers = []
    total = 0
    for args in calls:
        start = time.process_time_ns()
        answers.append(fn(*args))
        total += time.process_time_ns() - start
    return answers, total / 1000 / len(calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2, help="strong games per preset")
    parser.add_argument("--random-games", type=int, default=2, help="random games per preset")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    hands, laydowns = record(args.games, args.random_games)
    result: dict = {"hands": len(hands), "clock": "time.process_time_ns, caches emptied"}
    sides = [("kernels", True), ("python", False)] if kernels.compiled else [("python", False)]
    for side, enabled in sides:
        kernels.use(enabled)
        row = {}
        answers = {}
        for name, fn in (("contract_exists", by_exists), ("ContractSearch first_only", by_search),
                         ("hand_analysis distance 0", by_distance)):  # fmt: skip
            answers[name], row[name] = timed(fn, hands)
        agree = len({tuple(a) for a in answers.values()}) == 1
        result[side] = {"mean_us": row, "answers_agree": agree,
                        "can_lay_down": sum(answers["contract_exists"])}  # fmt: skip
        print(f"{side}: {len(hands)} hands, answers agree: {agree}")
        for name, us in row.items():
            print(f"  {name:26s} {us:9.1f} us/call")
    kernels.use(kernels.compiled is not None)
    differ = 0
    for counts, trios, runs, rules, table in laydowns:
        fewest = melds.best_contract(counts, trios, runs, rules)
        chosen = melds.best_laydown(counts, trios, runs, rules, list(table))
        assert fewest is not None and chosen is not None
        differ += [m.cards for m in fewest] != [m.cards for m in chosen]
    result["laydown_calls"] = len(laydowns)
    result["laydown_differs_from_best_contract"] = differ
    print(
        f"lay-down choice differs from the fewest-points arrangement: {differ} of {len(laydowns)}"
    )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1) + "\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
