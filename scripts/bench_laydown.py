"""CPU time per lay-down choice (``melds.laydown_plan``): the Python reference and the C port.

The lay-down choices of seeded games are recorded (random play, lay-downs taken half the time
they are legal; and ``strong@v1`` at every seat), then each distinct call is timed on both sides
with ``time.process_time``: ``laydown_plan_reference`` (the compiled contract search and core
enumeration under it, as it ran before the port) and ``_kernels.laydown_plan``.

    python scripts/bench_laydown.py --games 4
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from agents.contract.view import PlayerView
from agents.registry import make_agent
from continental_env import kernels, melds
from continental_env.contract.game import Game
from continental_env.melds import laydown
from continental_env.rules import points_table


def record(games: int, strong: bool) -> list[tuple]:
    """Distinct ``laydown_plan`` arguments of ``games`` seeded 4-player ``continental`` games."""
    calls: list[tuple] = []
    original = laydown.laydown_plan

    def spy(*args: Any) -> Any:
        calls.append(args)
        return original(*args)

    laydown.laydown_plan = spy
    try:
        for seed in range(games):
            game = Game.new("continental", 4, seed=seed)
            rng = random.Random(seed)
            bots = [make_agent("strong@v1", seed * 4 + s) for s in range(4)] if strong else []
            while not game.is_over:
                if strong:
                    game.apply(bots[game.actor].act(PlayerView(game, game.actor)))
                    continue
                legal = game.legal_actions()
                game.apply(4 if 4 in legal and rng.random() < 0.5 else rng.choice(legal))
    finally:
        laydown.laydown_plan = original
    return list(dict.fromkeys(calls))


def per_call(calls: list[tuple]) -> tuple[float, float]:
    """Mean CPU microseconds per call: the reference, the kernel (same results checked)."""
    native = kernels.compiled
    assert native is not None, "kernels not built"
    for args in calls:  # best_contract's cache would flatter the reference's second call
        melds.best_arrangement(*args[:4], False)
    reference = kernel = 0.0
    for counts, trios, runs, rules, signature in calls:
        pts = points_table(rules)
        start = time.process_time()
        want = laydown.laydown_plan_reference(counts, trios, runs, rules, signature)
        middle = time.process_time()
        got = native.laydown_plan(
            counts, trios, runs, rules.min_run, rules.ace_wraparound, pts, signature
        )
        kernel += time.process_time() - middle
        reference += middle - start
        assert got == want, (counts, trios, runs, signature)
    return reference / len(calls) * 1e6, kernel / len(calls) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    args = parser.parse_args()
    for label, strong in (("random play", False), ("strong@v1", True)):
        calls = record(args.games, strong)
        reference, kernel = per_call(calls)
        sizes = [sum(c[0]) for c in calls]
        print(
            f"{label}: {len(calls)} lay-downs (hands of {min(sizes)}-{max(sizes)} cards): "
            f"reference {reference:.1f} us, C {kernel:.1f} us per lay-down "
            f"({reference / kernel:.1f}x)"
        )


if __name__ == "__main__":
    main()
