"""The measurements behind the kernels' toolchain choice (docs/speed-kernels.md).

C extension: gcc's time for ``continental_env/_kernels.c`` with the package's flags, the import
of the built module, and ``make_plan`` per call on calls recorded from seeded games of strong.
numba (when ``--numba-python`` names an interpreter with numba installed): ``import numba``, the
first call of ``scripts/numba_make_plan.py`` with an empty on-disk cache (the JIT compile), the
same in a second process (loaded from the cache), and the per-call time on the same calls. CPU
times are of the process (``time.process_time``).

    python scripts/measure_toolchain.py --numba-python /tmp/nbenv/bin/python \\
        --out results/speed_kernels_toolchain.json
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import resource
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

C_IMPORT_CHILD = r"""
import time
import continental_env.cards  # the package itself first: only the extension is timed
cpu = time.process_time_ns()
import continental_env._kernels
print((time.process_time_ns() - cpu) / 1e6)
"""

NUMBA_CHILD = r"""
import json, pickle, sys, time
c = time.process_time(); w = time.perf_counter()
import numba
imp = (time.process_time() - c, time.perf_counter() - w)
import numpy as np
sys.path.insert(0, sys.argv[2])
import numba_make_plan as m
calls = pickle.load(open(sys.argv[1], "rb"))
c = time.process_time(); w = time.perf_counter()
m.make_plan(*calls[0])
first = (time.process_time() - c, time.perf_counter() - w)
c = time.process_time_ns()
for a in calls:
    m.make_plan(*a)
per = (time.process_time_ns() - c) / 1000 / len(calls)
print(json.dumps({"version": numba.__version__, "import_cpu_s": imp[0], "import_wall_s": imp[1],
                  "first_call_cpu_s": first[0], "first_call_wall_s": first[1],
                  "per_call_us": per}))
"""


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def gcc_build(tmp: Path) -> dict:
    include = sysconfig.get_paths()["include"]
    cmd = ["gcc", "-O2", "-ffp-contract=off", "-fPIC", "-shared", f"-I{include}",
           str(ROOT / "continental_env/_kernels.c"), "-o", str(tmp / "_k.so")]  # fmt: skip
    cpu, wall = children_cpu(), time.perf_counter()
    subprocess.run(cmd, check=True)
    return {"cpu_s": children_cpu() - cpu, "wall_s": time.perf_counter() - wall}


def record_plan_calls(games: int) -> list[tuple]:
    sys.path.insert(0, str(ROOT))
    from agents.contract import strong
    from agents.contract.view import PlayerView
    from continental_env import kernels
    from continental_env.contract.game import Game

    calls = []
    original = strong.make_plan_reference

    def spy(*args):  # type: ignore[no-untyped-def]
        calls.append(args)
        return original(*args)

    strong.make_plan_reference = spy
    kernels.use(False)
    try:
        for seed in range(games):
            game = Game.new("continental", 4, seed=seed)
            bots = [strong.StrongAgent(s) for s in range(4)]
            while not game.is_over:
                game.apply(bots[game.actor].act(PlayerView(game, game.actor)))
    finally:
        strong.make_plan_reference = original
        kernels.use(True)
    rows = dict.fromkeys(calls)
    return [(h, u, t, r, rules.min_run, rules.ace_wraparound) for h, u, t, r, rules in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--numba-python", help="an interpreter with numba installed")
    parser.add_argument("--games", type=int, default=2, help="strong games to record calls")
    parser.add_argument("--out", type=Path, default=ROOT / "results/speed_kernels_toolchain.json")
    args = parser.parse_args()
    out: dict = {"clock": "process CPU time; wall beside it"}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        out["c_gcc_build"] = gcc_build(tmp)
        calls = record_plan_calls(args.games)
        (tmp / "calls.pkl").write_bytes(pickle.dumps(calls))
        out["c_import_cpu_ms"] = float(
            subprocess.run(
                [sys.executable, "-c", C_IMPORT_CHILD],
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                check=True, capture_output=True, text=True,
            ).stdout.strip()
        )  # fmt: skip
        import continental_env._kernels as native

        cpu = time.process_time_ns()
        for a in calls:
            native.make_plan(*a)
        out["c_make_plan_per_call_us"] = (time.process_time_ns() - cpu) / 1000 / len(calls)
        out["make_plan_calls"] = len(calls)
        if args.numba_python:
            env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp / "numba-cache")}
            runs = []
            for _ in range(2):  # an empty cache, then the cache the first run wrote
                result = subprocess.run(
                    [args.numba_python, "-c", NUMBA_CHILD, str(tmp / "calls.pkl"),
                     str(ROOT / "scripts")],
                    env=env, check=True, capture_output=True, text=True,
                )  # fmt: skip
                runs.append(json.loads(result.stdout.strip().splitlines()[-1]))
            out["numba_cold_cache"], out["numba_warm_cache"] = runs
    print(json.dumps(out, indent=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
