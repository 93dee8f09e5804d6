"""CPU cost of the continental_v1 features: ``encode_features_reference`` against the compiled
``encode_features``, and the v1 AEC env's decisions per CPU second with each.

Positions come from seeded random legal play (every decision of one game per table, to the end),
every call timed with ``time.process_time`` (CPU of this process: the machine may be shared).
The reference is timed twice: caches emptied first (as in play, where most hands are new) and
with its caches warm from the first pass (the best it can do). The env figure alternates the
two paths in passes of ``--seconds`` CPU seconds of random play through ``env_v1``, each pass
from a new seed. Usage::

    python scripts/bench_features.py --repeats 3 --seconds 2
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

import numpy as np

import continental_env.contract.aec as aec
from continental_env import kernels
from continental_env.bench import _random_play
from continental_env.contract import features
from continental_env.contract.game import Game
from continental_env.melds import distance

TABLES = (("continental", 4, 1), ("continental", 2, 2), ("continental_us", 6, 3),
          ("continental_es", 8, 4))  # fmt: skip


def positions(preset: str, players: int, seed: int) -> list[tuple[Game, int]]:
    """Every decision of one game of random legal play, and its end (seat 0)."""
    rng = random.Random(seed)
    game = Game.new(preset, players, seed=seed)
    out = []
    while not game.is_over:
        out.append((game.clone(), game.actor))
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    out.append((game.clone(), 0))
    return out


def clear_caches() -> None:
    distance.hand_analysis.cache_clear()
    features._hand_arrays.cache_clear()
    features._partners.cache_clear()


def per_call(fn: Any, calls: list[tuple[Game, int]]) -> float:
    """CPU µs per call of ``fn(game, seat)`` over ``calls``."""
    start = time.process_time()
    for game, seat in calls:
        fn(game, seat)
    return (time.process_time() - start) / len(calls) * 1e6


def env_rate(seconds: float, seed: int) -> float:
    """Decisions per CPU second of random legal play through ``env_v1`` (4 players)."""
    env = aec.env_v1(num_players=4)
    rng = np.random.default_rng(seed)
    decisions = 0
    start = time.process_time()
    for _ in _random_play(env, rng, seed, None):  # continental bench's random play
        decisions += 1
        if time.process_time() - start >= seconds:
            break
    return decisions / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per env pass")
    args = parser.parse_args()
    if not kernels.active():
        raise SystemExit("the compiled kernels are not built or switched off: nothing to compare")
    calls = [c for table in TABLES for c in positions(*table)]
    print(
        f"{len(calls):,} positions of random play ({', '.join(f'{t[0]} {t[1]}p' for t in TABLES)})"
    )
    cold, warm, compiled = [], [], []
    for _ in range(args.repeats):
        clear_caches()
        cold.append(per_call(features.encode_features_reference, calls))
        warm.append(per_call(features.encode_features_reference, calls))
        compiled.append(per_call(features.encode_features, calls))
    med = statistics.median
    print(f"encode_features_reference, caches emptied first: {med(cold):.1f} µs/call (CPU)")
    print(f"encode_features_reference, caches warm:         {med(warm):.1f} µs/call (CPU)")
    print(f"encode_features, compiled:                      {med(compiled):.1f} µs/call (CPU)")
    compiled_env = aec.encode_features
    rates: tuple[list[float], list[float]] = ([], [])
    try:
        for r in range(args.repeats):
            aec.encode_features = features.encode_features_reference
            clear_caches()
            rates[0].append(env_rate(args.seconds, 100 + r))
            aec.encode_features = compiled_env
            rates[1].append(env_rate(args.seconds, 100 + r))
    finally:
        aec.encode_features = compiled_env
    before, after = med(rates[0]), med(rates[1])
    print(f"env_v1, 4 players, random play: {before:,.0f} decisions/CPU s with the reference, "
          f"{after:,.0f} compiled ({after / before:.2f}x)")  # fmt: skip


if __name__ == "__main__":
    main()
