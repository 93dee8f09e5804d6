"""CPU time of two checkouts side by side: random legal play and strong games, paired runs.

Each case runs in fresh child processes, one per checkout, adjacent in time and in alternating
order, on the same seeds (the action counts must match); the figure is the median over pairs of
after/before CPU time per action (``time.process_time`` of the child), so a shared machine's load
hits both sides alike. ``CONTINENTAL_KERNELS`` passes through to the children.

    git archive 36da32b | tar -x -C /tmp/before    # a checkout to compare with (pure Python)
    python scripts/bench_checkouts.py /tmp/before . --reps 6
    python scripts/bench_checkouts.py /tmp/before . --reps 6 --game fifteen knock   # some games
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, sys, time
import numpy as np
import continental_env
from continental_env import bench, kernels
mode, game, players, games, seed = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
cpu = time.process_time()
if mode == "engine":
    n, _ = bench.bench_engine(players, games, "continental", seed, game)
elif mode == "aec":
    n, _ = bench.bench_aec(players, games, "continental", seed, game)
elif mode == "aec_v1":
    env = continental_env.env(num_players=players, version=1)
    rng = np.random.default_rng(seed)
    n = sum(1 for _ in bench._random_play(env, rng, seed, games))
else:  # strong at every seat
    from agents import make_agent
    try:  # the agents/ layout by purpose, then the flat one of older checkouts
        from agents.contract.view import PlayerView
    except ModuleNotFoundError:
        from agents.base import PlayerView
    from continental_env.contract.game import Game
    n = 0
    for g in range(games):
        state = Game.new("continental", players, seed=seed + g)
        bots = [make_agent("strong", seed * 10 + s) for s in range(players)]
        while not state.is_over:
            state.apply(bots[state.actor].act(PlayerView(state, state.actor)))
            n += 1
print(json.dumps({"cpu": time.process_time() - cpu, "actions": n, "kernels": kernels.active()}))
"""

CASES = [
    ("engine", "contract", 4, 6),
    ("aec", "contract", 4, 4),
    ("aec_v1", "contract", 4, 3),
    ("strong", "contract", 4, 2),
    ("engine", "fifteen", 4, 20),
    ("aec", "fifteen", 4, 20),
    ("engine", "knock", 4, 10),
    ("aec", "knock", 4, 10),
]


def run(checkout: str, case: tuple, seed: int) -> dict:
    env = {**os.environ, "PYTHONPATH": checkout, "OMP_NUM_THREADS": "1"}
    mode, game, players, games = case
    args = [sys.executable, "-c", CHILD, mode, game, str(players), str(games), str(seed)]
    out = subprocess.run(args, cwd=checkout, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", help="the checkout to compare with")
    parser.add_argument("after", help="this checkout")
    parser.add_argument("--reps", type=int, default=6, help="paired runs per case")
    parser.add_argument(
        "--game", nargs="+", choices=sorted({case[1] for case in CASES}), help="only these games"
    )
    args = parser.parse_args()
    kernels = os.environ.get("CONTINENTAL_KERNELS", "1")
    print(f"CONTINENTAL_KERNELS={kernels}, {args.reps} paired runs per case")
    print(f"{'case':28s} {'before ms/action':>17s} {'after ms/action':>16s}  after/before")
    for case in CASES:
        if args.game and case[1] not in args.game:
            continue
        totals = {"before": [0.0, 0], "after": [0.0, 0]}
        ratios = []
        for rep in range(args.reps):
            order = [("before", args.before), ("after", args.after)]
            per_action = {}
            for side, checkout in order if rep % 2 == 0 else order[::-1]:
                result = run(checkout, case, 100 + rep)
                totals[side][0] += result["cpu"]
                totals[side][1] += result["actions"]
                per_action[side] = result["cpu"] / result["actions"]
            ratios.append(per_action["after"] / per_action["before"])
        assert totals["before"][1] == totals["after"][1], f"{case}: the games differ"
        ms = {side: 1000 * cpu / actions for side, (cpu, actions) in totals.items()}
        name = f"{case[0]} {case[1]} P={case[2]} x{case[3]}"
        print(
            f"{name:28s} {ms['before']:17.4f} {ms['after']:16.4f}  "
            f"{statistics.median(ratios):.3f} [{min(ratios):.3f}-{max(ratios):.3f}]",
            flush=True,
        )


if __name__ == "__main__":
    main()
