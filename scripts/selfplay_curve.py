"""The learning curve of a self-play run: each policy it kept (``--policy-every``) against fixed
opponents on duplicate deals, against the CPU-hours that trained it.

    python scripts/selfplay_curve.py runs/selfplay_shared --opponents greedy,strong@v1 \\
        --deals 20 --seed 99101 --json results/selfplay_curve.json --plot results/selfplay_curve.png

Each kept policy ``policies/policy_<decisions>.npz`` plays one seat against three copies of each
opponent on the same ``--deals`` deals (every seating, ``agents.evaluate``); the figure is the
paired difference in points per game (negative: the policy scores fewer points, it is ahead) with
its 95 % interval over deals, and the win rate beside it. The CPU-hours are the trainer's own
count (``cpu_s`` in the policy's metadata). A screen: the deals are few and the same at every
point, so the curve shows the trend, not a decisive figure. Results already in ``--json`` for
the same opponents, deals and seed are kept, so a rerun evaluates only the new policies.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from agents.bots.ppo_agent import NumpyPolicy
from agents.cli import parse_rounds
from agents.evaluate import evaluate


def kept_policies(run_dir: Path) -> list[Path]:
    paths = sorted((run_dir / "policies").glob("policy_*.npz"))
    if not paths:
        raise ValueError(f"{run_dir}: no kept policies in {run_dir / 'policies'} (--policy-every)")
    return paths


def point(
    path: Path, opponent: str, deals: int, seed: int, players: int, rounds: list[int] | None
) -> dict[str, Any]:
    meta = NumpyPolicy.load_npz(str(path)).meta or {}
    name = f"ppo:{path}"
    report = evaluate([name, opponent], players=players, games=deals, seed=seed, rounds=rounds)
    paired = report["paired"][opponent]
    return {
        "policy": path.name,
        "opponent": opponent,
        "decisions": meta.get("decisions"),
        "cpu_h": meta["cpu_s"] / 3600 if "cpu_s" in meta else None,
        "mean_diff": paired["mean_diff"],
        "ci95": paired["ci95"],
        "sd_per_deal": paired["sd_per_deal"],
        "win_rate": report["agents"][name]["win_rate"],
    }


def plot(points: list[dict[str, Any]], out: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
    for opponent in dict.fromkeys(p["opponent"] for p in points):
        mine = [
            p
            for p in points
            if p["opponent"] == opponent and p["cpu_h"] is not None and p["ci95"] is not None
        ]
        x = [p["cpu_h"] for p in mine]
        y = [p["mean_diff"] for p in mine]
        lo = [p["mean_diff"] - p["ci95"][0] for p in mine]
        hi = [p["ci95"][1] - p["mean_diff"] for p in mine]
        ax.errorbar(x, y, yerr=[lo, hi], marker="o", capsize=3, label=f"vs 3 x {opponent}")
        bx.plot(x, [p["win_rate"] for p in mine], marker="o", label=f"vs 3 x {opponent}")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("training CPU-hours")
    ax.set_ylabel("points per game vs opponent (paired; < 0: ahead)")
    bx.axhline(0.25, color="grey", lw=0.8, ls="--")
    bx.set_xlabel("training CPU-hours")
    bx.set_ylabel("win rate (0.25: level at a table of four)")
    for a in (ax, bx):
        a.legend()
        a.grid(alpha=0.3)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    tmp = f"{out}.{os.getpid()}.tmp.png"
    fig.savefig(tmp, dpi=110)
    os.replace(tmp, out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a self-play run directory with policies/")
    parser.add_argument("--opponents", default="greedy,strong@v1")
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--seed", type=int, default=99101)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", default="all", help="'all' or a list such as '1,2'")
    parser.add_argument("--every", type=int, default=1, help="evaluate every k-th kept policy")
    parser.add_argument("--json", default=None)
    parser.add_argument("--plot", default=None)
    args = parser.parse_args(argv)
    if args.deals < 1 or args.every < 1:
        parser.error(f"--deals {args.deals} / --every {args.every}: must be at least 1")
    try:
        paths = kept_policies(Path(args.run))
    except ValueError as exc:
        parser.error(str(exc))
    paths = paths[:: -args.every][::-1]  # the newest always, then every k-th before it
    opponents = [o for o in args.opponents.split(",") if o]
    rounds = parse_rounds(args.rounds)
    setting = {"deals": args.deals, "seed": args.seed, "players": args.players, "rounds": rounds}
    done: dict[tuple[str, str], dict[str, Any]] = {}
    if args.json and Path(args.json).exists():
        old = json.loads(Path(args.json).read_text())
        if old.get("setting") == setting:
            done = {(p["policy"], p["opponent"]): p for p in old["points"]}
    points = []
    for path in paths:
        for opponent in opponents:
            p = done.get((path.name, opponent)) or point(
                path, opponent, args.deals, args.seed, args.players, rounds
            )
            points.append(p)
            hours = "?" if p["cpu_h"] is None else f"{p['cpu_h']:.2f}"
            ci = "" if p["ci95"] is None else f" [{p['ci95'][0]:+.1f}, {p['ci95'][1]:+.1f}]"
            print(
                f"{p['policy']} ({hours} CPU-h) vs {opponent}: {p['mean_diff']:+.1f}{ci}, "
                f"win rate {p['win_rate']:.3f}",
                flush=True,
            )
            if args.json:
                report = {"run": args.run, "setting": setting, "points": points}
                tmp = f"{args.json}.{os.getpid()}.tmp"
                Path(tmp).write_text(json.dumps(report, indent=2) + "\n")
                os.replace(tmp, args.json)
    if args.plot:
        title = (f"{args.run}: each kept policy vs 3 x opponent, {args.deals} duplicate deals "
                 f"(seed {args.seed}; a screen)")  # fmt: skip
        plot(points, args.plot, title)
        print(f"wrote {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
