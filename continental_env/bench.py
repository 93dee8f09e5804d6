"""Throughput benchmark: random legal play through the bare engine and the wrapped AEC env.

    continental bench [--games 20] [--players 2 4] [--preset continental]
    python -m continental_env.bench ...      (the same)

Each figure is the median of ``--repeats`` passes (the machine may be noisy). The AEC figure
includes an observation and an action mask on every step (``env.last()``), as a learner sees it.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time

from continental_env.game import Game
from continental_env.rules import PRESETS


def bench_engine(players: int, games: int, preset: str, seed: int) -> tuple[int, float]:
    """(actions, seconds) for `games` random games through the bare engine."""
    rng = random.Random(seed)
    actions = 0
    start = time.perf_counter()
    for g in range(games):
        game = Game.new(preset, players, seed=seed + g)
        while not game.is_over:
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
            actions += 1
    return actions, time.perf_counter() - start


def bench_aec(players: int, games: int, preset: str, seed: int) -> tuple[int, float]:
    """(actions, seconds) for `games` random games through the wrapped AEC env."""
    import numpy as np

    import continental_env

    env = continental_env.env(num_players=players, preset=preset)
    rng = np.random.default_rng(seed)
    actions = 0
    start = time.perf_counter()
    for g in range(games):
        env.reset(seed=seed + g)
        for agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            actions += 1
            del agent
    return actions, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    """``continental bench``: every option is checked before the first game."""
    parser = argparse.ArgumentParser(prog="continental bench", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per measurement")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--preset", default="continental")
    parser.add_argument("--repeats", type=int, default=3, help="passes; the median is shown")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.games < 1 or args.repeats < 1:
        parser.error("--games and --repeats must be at least 1")
    if args.preset not in PRESETS:
        parser.error(f"--preset {args.preset!r}: choose one of {', '.join(PRESETS)}")
    for players in args.players:
        try:
            PRESETS[args.preset].check_players(players)
        except ValueError as exc:
            parser.error(f"--players {players}: {exc}")
    print(f"python {platform.python_version()} on {platform.machine()}, preset {args.preset}")
    print(f"{'players':>7} {'mode':>6} {'actions/s':>10} {'games/s':>8} {'actions/game':>12}")
    for players in args.players:
        for mode, fn in (("engine", bench_engine), ("aec", bench_aec)):
            rates = []
            games_rates = []
            per_game = 0.0
            for r in range(args.repeats):
                actions, secs = fn(players, args.games, args.preset, args.seed + 1000 * r)
                rates.append(actions / secs)
                games_rates.append(args.games / secs)
                per_game = actions / args.games
            print(
                f"{players:>7} {mode:>6} {statistics.median(rates):>10,.0f} "
                f"{statistics.median(games_rates):>8.2f} {per_game:>12,.0f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
