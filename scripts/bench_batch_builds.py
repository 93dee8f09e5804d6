"""Builds of the batch core side by side in one process: CPU time of random legal play.

Each path is a built ``_batch`` extension (``continental_env/_batch.cpython-*.so``) of some
tree; all are loaded at once, and alternating short passes of random legal play at ``--lanes``
lanes (4 players, an observation and a mask every decision) are timed in CPU time, so the
machine's load touches every build alike. The first build is the 1x of the ratios. To build an
older tree's core: ``git worktree add /tmp/old REV && cd /tmp/old && python -c "from setuptools
import setup; setup()" build_ext --inplace``.

    python scripts/bench_batch_builds.py --observation v0 --passes 20 \\
        /tmp/old/continental_env/_batch.cpython-311-x86_64-linux-gnu.so \\
        continental_env/_batch.cpython-311-x86_64-linux-gnu.so
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path
from typing import Any

import numpy as np

import continental_env.contract.batch as batch_module
from continental_env.batch import BatchGame


def load_build(path: Path, k: int) -> Any:
    """The extension at ``path`` as its own module (``build{k}._batch``)."""
    if not path.is_file():
        raise SystemExit(f"build {path}: no such file")
    spec = importlib.util.spec_from_file_location(f"build{k}._batch", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"build {path}: not a loadable extension module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("builds", nargs="+", type=Path, help="built _batch extensions")
    parser.add_argument("--observation", choices=("v0", "v1"), default="v0")
    parser.add_argument("--lanes", type=int, default=1024)
    parser.add_argument("--passes", type=int, default=20, help="passes per build")
    parser.add_argument("--seconds", type=float, default=0.3, help="CPU seconds per pass")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    games = []
    for k, path in enumerate(args.builds):
        module = load_build(path, k)
        batch_module._compiled_module = lambda module=module: module  # this build's core
        game = BatchGame(args.lanes, 4, seed=args.seed, observation=args.observation)
        if game.backend != "compiled":
            raise SystemExit(f"build {path}: BatchGame did not take it (backend {game.backend})")
        game.reset()
        games.append(game)
    rng = np.random.default_rng(args.seed)
    cpu = [0.0] * len(games)
    decisions = [0] * len(games)
    for _ in range(args.passes):
        for k, game in enumerate(games):
            start = time.process_time()
            while time.process_time() - start < args.seconds:
                game.step(game.random_legal(rng))
                decisions[k] += args.lanes
            cpu[k] += time.process_time() - start
    rates = [d / c for d, c in zip(decisions, cpu, strict=True)]
    print(f"{args.passes} alternating passes of {args.seconds:g} CPU s per build; "
          f"{args.lanes} lanes, 4 players, observation {args.observation}")  # fmt: skip
    for path, rate in zip(args.builds, rates, strict=True):
        print(f"{path!s:70s} {rate:>10,.0f} decisions per CPU-s  {rate / rates[0]:.3f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
