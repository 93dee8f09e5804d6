"""CPU cost of the compiled kernels, side by side with a base commit, in one run.

Two measurements, both in CPU time of the process (``time.process_time``), so the load of a
shared machine does not distort them:

1. **search games.** 4-player ``continental`` games with ``search`` (4 worlds) in seat 0 and
   ``strong`` in the others (``agents.contract.search.bench``'s game), played by the base commit and by
   this checkout in alternating child processes; every game's action hash must match.
2. **per call.** Argument tuples recorded from seeded games (strong at every seat, random play
   for the long hands, and one search game), then each hot function timed on them: the pure-Python reference (the base
   commit's code) and the compiled kernel, by the actor's hand size.

    python scripts/bench_kernels.py --base 5894364 --games 3 --reps 2 \\
        --out results/speed_kernels_search.json

The base commit is exported with ``git archive`` into a temporary directory (pure Python, no
build needed); this checkout must have its kernels built (``pip install -e .`` does it).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

GAME_CHILD = r"""
import hashlib, json, sys, time
try:  # this tree's layout, then the flat agents/ of older base commits
    from agents.contract.view import PlayerView
    from agents.contract.search import SearchAgent
    from agents.contract.strong import StrongAgent
except ModuleNotFoundError:
    from agents.base import PlayerView
    from agents.search import SearchAgent
    from agents.strong import StrongAgent
from continental_env.contract.game import Game
try:
    from continental_env import kernels
    active = kernels.active()
except ImportError:
    active = False
out = []
for seed in json.loads(sys.argv[1]):
    game = Game.new("continental", 4, seed=seed)
    bots = [SearchAgent(seed, 4)] + [StrongAgent(s) for s in range(1, 4)]
    digest = hashlib.sha256()
    actions = 0
    cpu = time.process_time()
    while not game.is_over:
        action = bots[game.actor].act(PlayerView(game, game.actor))
        digest.update(action.to_bytes(2, "little"))
        actions += 1
        game.apply(action)
    out.append({"seed": seed, "cpu_s": time.process_time() - cpu, "actions": actions,
                "hash": digest.hexdigest(), "kernels": active})
print(json.dumps(out))
"""


def export_base(commit: str, into: Path) -> Path:
    """The base commit's files (``git archive``), without touching this repository's worktrees."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", commit],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def play(checkout: Path, seeds: list[int]) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(checkout), "OMP_NUM_THREADS": "1"}
    result = subprocess.run(
        [sys.executable, "-c", GAME_CHILD, json.dumps(seeds)],
        cwd=checkout,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def bench_games(base: Path, games: int, reps: int, first_seed: int) -> dict:
    seeds = list(range(first_seed, first_seed + games))
    rows: dict[str, list[dict]] = {"base": [], "kernels": []}
    for rep in range(reps):  # alternate, so a change of machine load hits both sides alike
        order = (("base", base), ("kernels", ROOT))
        for side, checkout in order if rep % 2 == 0 else order[::-1]:
            rows[side].extend(play(checkout, seeds))
            print(f"rep {rep} {side}: {[round(r['cpu_s'], 2) for r in rows[side][-games:]]}")
    assert all(r["kernels"] for r in rows["kernels"]), "this checkout ran without its kernels"
    base_hash = {r["seed"]: r["hash"] for r in rows["base"]}
    identical = all(base_hash[r["seed"]] == r["hash"] for r in rows["kernels"])
    per_game = {side: statistics.mean(r["cpu_s"] for r in rs) for side, rs in rows.items()}
    per_decision = {
        side: 1000 * sum(r["cpu_s"] for r in rs) / sum(r["actions"] for r in rs)
        for side, rs in rows.items()
    }
    return {
        "game": "4 players, continental, search:4 in seat 0, strong in seats 1-3",
        "seeds": seeds,
        "reps": reps,
        "cpu_s_per_game": per_game,
        "cpu_ms_per_action": per_decision,
        "ratio_kernels_to_base": per_game["kernels"] / per_game["base"],
        "actions_identical": identical,
        "games": rows,
    }


BUCKETS = ((0, 10), (11, 15), (16, 20), (21, 30), (31, 45), (46, 70))


def bucket(size: int) -> str:
    for lo, hi in BUCKETS:
        if lo <= size <= hi:
            return f"{lo}-{hi}" if lo else f"<={hi}"
    return ">70"


def record_calls(
    strong_seeds: int, random_seeds: int, search_seeds: list[int]
) -> dict[str, list[tuple]]:
    """Arguments of the references' calls in seeded games (every call, caches emptied)."""
    from agents.bots.random_agent import RandomAgent
    from agents.contract import strong
    from agents.contract.handtools import unseen_counts
    from agents.contract.search import SearchAgent
    from agents.contract.view import PlayerView
    from continental_env import kernels, melds
    from continental_env.contract.game import Game

    calls: dict[str, list[tuple]] = {
        "make_plan": [],
        "has_contract": [],
        "best_laydown": [],
        "best_contract": [],
        "hand_analysis": [],
    }
    spies = (
        (melds.contract, "contract_search", "best_contract"),
        (strong, "make_plan_reference", "make_plan"),
        (melds.exists, "contract_exists_reference", "has_contract"),
        (melds.laydown, "laydown_plan", "best_laydown"),
    )
    originals = []
    for module, name, key in spies:
        original = getattr(module, name)
        originals.append((module, name, original))

        def spy(*args, _original=original, _key=key):  # type: ignore[no-untyped-def]
            calls[_key].append(args)
            return _original(*args)

        setattr(module, name, spy)
    kernels.use(False)
    try:
        for seed in range(strong_seeds):
            game = Game.new("continental", 4, seed=seed)
            bots = [strong.StrongAgent(s) for s in range(4)]
            while not game.is_over:
                # what a v1 observation asks of hand_analysis: the actor's hand and contract
                hand = tuple(game.state.hands[game.actor])
                calls["hand_analysis"].append((hand, *game.contract, game.rules))
                game.apply(bots[game.actor].act(PlayerView(game, game.actor)))
        # Random play builds the long hands (30-70 cards) of the table's right-hand columns;
        # make_plan is asked what strong would ask there (the actor's hand and unseen cards).
        for seed in range(random_seeds):
            game = Game.new("continental", 4, seed=seed)
            bots = [RandomAgent(seed * 4 + s) for s in range(4)]
            while not game.is_over:
                view = PlayerView(game, game.actor)
                hand = tuple(game.state.hands[game.actor])
                calls["hand_analysis"].append((hand, *game.contract, game.rules))
                unseen = tuple(unseen_counts(view))
                calls["make_plan"].append((hand, unseen, *game.contract, game.rules))
                game.apply(bots[game.actor].act(view))
        for seed in search_seeds:
            game = Game.new("continental", 4, seed=seed)
            bots = [SearchAgent(seed, 4)] + [strong.StrongAgent(s) for s in range(1, 4)]
            while not game.is_over:
                game.apply(bots[game.actor].act(PlayerView(game, game.actor)))
    finally:
        for module, name, original in originals:
            setattr(module, name, original)
        kernels.use(True)
    for key in calls:  # distinct calls only: the cache answers repeats
        calls[key] = list(dict.fromkeys(calls[key]))
    return calls


def time_each(fn, calls: list[tuple]) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for args in calls:
        cpu = time.process_time_ns()
        fn(*args)
        out.append((time.process_time_ns() - cpu) / 1000)
    return out


def bench_calls(strong_seeds: int, random_seeds: int, search_seeds: list[int]) -> dict:
    from agents.contract import strong
    from continental_env import kernels, melds
    from continental_env.contract import features
    from continental_env.rules import points_table

    calls = record_calls(strong_seeds, random_seeds, search_seeds)
    native = kernels.compiled
    assert native is not None, "kernels not built"

    def plan_kernel(hand, unseen, trios, runs, rules):  # type: ignore[no-untyped-def]
        return native.make_plan(hand, unseen, trios, runs, rules.min_run, rules.ace_wraparound)

    def exists_kernel(counts, trios, runs, min_run, wrap, steal):  # type: ignore[no-untyped-def]
        return native.contract_exists(counts, trios, runs, min_run, wrap, steal)

    def analysis_kernel(counts, trios, runs, rules):  # type: ignore[no-untyped-def]
        return native.hand_analysis(counts, trios, runs, rules.min_run, rules.ace_wraparound)

    def search_reference(counts, trios, runs, rules, first_only):  # type: ignore[no-untyped-def]
        return melds.ContractSearch(counts, trios, runs, rules).run(first_only)

    def search_kernel(counts, trios, runs, rules, first_only):  # type: ignore[no-untyped-def]
        pts = points_table(rules)
        wrap = rules.ace_wraparound
        return native.contract_search(counts, trios, runs, rules.min_run, wrap, pts, first_only)

    laydown = melds.laydown_plan.__wrapped__

    def laydown_reference(*args):  # type: ignore[no-untyped-def]
        kernels.use(False)
        try:
            return laydown(*args)
        finally:
            kernels.use(True)

    table = {}
    functions = {
        "make_plan": (strong.make_plan_reference, plan_kernel),
        "has_contract": (melds.contract_exists_reference, exists_kernel),
        "best_contract": (search_reference, search_kernel),
        "best_laydown": (laydown_reference, laydown),
        "hand_analysis": (features.hand_analysis_reference, analysis_kernel),
    }
    for name, (reference, kernel) in functions.items():
        rows = calls[name]
        # best_contract's own cache would flatter the second side: time it out of both
        if name == "best_laydown":
            for args in rows:
                melds.best_arrangement(*args[:4], False)
        slow = time_each(reference, rows)
        fast = time_each(kernel, rows)
        by_bucket: dict[str, dict] = {}
        for args, s, f in zip(rows, slow, fast, strict=True):
            size = sum(args[0])
            entry = by_bucket.setdefault(bucket(size), {"n": 0, "ref": [], "kernel": []})
            entry["n"] += 1
            entry["ref"].append(s)
            entry["kernel"].append(f)
        table[name] = {
            "calls": len(rows),
            "mean_us": {"reference": statistics.mean(slow), "kernel": statistics.mean(fast)},
            "speedup": sum(slow) / sum(fast),
            "by_hand_size": {
                key: {
                    "n": e["n"],
                    "reference_us": round(statistics.mean(e["ref"]), 1),
                    "reference_max_us": round(max(e["ref"]), 1),
                    "kernel_us": round(statistics.mean(e["kernel"]), 1),
                    "kernel_max_us": round(max(e["kernel"]), 1),
                }
                for key, e in sorted(by_bucket.items(), key=lambda kv: BUCKETS_ORDER[kv[0]])
            },
        }
    return table


BUCKETS_ORDER = {bucket(hi): i for i, (_lo, hi) in enumerate(BUCKETS)} | {">70": 99}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="5894364", help="commit to compare with")
    parser.add_argument("--games", type=int, default=3, help="search games per side and rep")
    parser.add_argument("--reps", type=int, default=2, help="alternating repetitions")
    parser.add_argument("--seed", type=int, default=1000, help="first game seed")
    parser.add_argument("--call-games", type=int, default=3, help="strong games to record calls")
    parser.add_argument("--random-games", type=int, default=2, help="random games (long hands)")
    parser.add_argument("--skip-games", action="store_true", help="only the per-call table")
    parser.add_argument("--out", type=Path, default=ROOT / "results/speed_kernels_search.json")
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT))
    result: dict = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "base": args.base,
        "head": subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
        ).stdout.strip(),
        "clock": "time.process_time (CPU of the process)",
    }
    if not args.skip_games:
        with tempfile.TemporaryDirectory() as tmp:
            base = export_base(args.base, Path(tmp))
            result["search_games"] = bench_games(base, args.games, args.reps, args.seed)
        g = result["search_games"]
        print(
            f"search game CPU: base {g['cpu_s_per_game']['base']:.2f} s, kernels "
            f"{g['cpu_s_per_game']['kernels']:.2f} s, ratio {g['ratio_kernels_to_base']:.3f}, "
            f"actions identical: {g['actions_identical']}"
        )
    result["per_call"] = bench_calls(args.call_games, args.random_games, [args.seed])
    for name, row in result["per_call"].items():
        print(f"{name}: {row['calls']} calls, x{row['speedup']:.1f}")
        for key, e in row["by_hand_size"].items():
            print(
                f"  {key:>6}: n={e['n']:5d} ref {e['reference_us']:8.1f} "
                f"[{e['reference_max_us']:9.1f}] us  kernel {e['kernel_us']:7.1f} "
                f"[{e['kernel_max_us']:8.1f}] us"
            )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
