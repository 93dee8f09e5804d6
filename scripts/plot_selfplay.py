"""A self-play run's learning curve against CPU-hours (``agents.train.selfplay``'s progress.csv).

Three panels over the run's CPU-hours (the trainer's own process time, resumed runs included):
the mean points a seat scored per round in its self-play games (lower is better only against a
fixed opponent: here every seat is the same policy, so it mostly shows how fast rounds close),
the policy's entropy per decision, and, when evaluation reports are given, the paired
difference to the reference agent on duplicate deals at the decisions they measured (lower is
better) with its 95 % interval.

    python scripts/plot_selfplay.py runs/selfplay_scratch/progress.csv --out results/selfplay.png \\
        [--evals 2949120=results/selfplay_vs_greedy_a.json,...]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Any


def read_progress(path: Path) -> list[dict[str, float]]:
    """The rows of a progress.csv as floats (one per update)."""
    with path.open(newline="") as fh:
        return [{k: float(v) for k, v in row.items() if v != ""} for row in csv.DictReader(fh)]


def read_eval(path: Path) -> tuple[str, float, float, float]:
    """(reference, paired difference, low, high) of an ``agents.evaluate --json`` report."""
    data: dict[str, Any] = json.loads(path.read_text())
    ((reference, paired),) = data["paired"].items()  # the candidate against its one reference
    low, high = paired["ci95"]
    return reference, paired["mean_diff"], low, high


SMOOTH = 50  # updates in the drawn running mean


def rolling_mean(values: list[float], width: int) -> list[float]:
    """The mean of each value and the ``width - 1`` before it (fewer at the start)."""
    out, total = [], 0.0
    for i, v in enumerate(values):
        total += v
        if i >= width:
            total -= values[i - width]
        out.append(total / min(i + 1, width))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("progress", type=Path, help="the run's progress.csv")
    parser.add_argument("--out", type=Path, required=True, help="the PNG to write")
    parser.add_argument(
        "--evals", default="", help="DECISIONS=REPORT.json,... evaluation reports to mark"
    )
    args = parser.parse_args(argv)
    rows = read_progress(args.progress)
    if not rows:
        parser.error(f"{args.progress} holds no updates yet")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    hours = [r["cpu_s"] / 3600.0 for r in rows]
    decisions = [r["decisions"] for r in rows]
    evals = []
    for item in filter(None, args.evals.split(",")):
        at, _, report = item.partition("=")
        evals.append((float(at), *read_eval(Path(report))))
    panels = 3 if evals else 2
    fig, axes = plt.subplots(panels, 1, figsize=(7, 2.6 * panels), sharex=True)
    for ax, key, color in (
        (axes[0], "round_points", "tab:blue"),
        (axes[1], "entropy", "tab:orange"),
    ):
        values = [r.get(key, float("nan")) for r in rows]
        ax.plot(hours, values, lw=0.6, color=color, alpha=0.35)
        ax.plot(hours, rolling_mean(values, SMOOTH), lw=1.6, color=color,
                label=f"mean of {SMOOTH} updates")  # fmt: skip
        ax.legend(loc="upper right", fontsize=8)
    axes[0].set_ylabel("points per seat-round\n(the policy's seats)")
    axes[1].set_ylabel("policy entropy\n(nats per decision)")
    if evals:
        # an evaluation's CPU-hour: that of the first update at or after its decisions
        xs = [next((h for h, d in zip(hours, decisions, strict=True) if d >= at), hours[-1])
              for at, *_ in evals]  # fmt: skip
        means = [e[2] for e in evals]
        errs = [[e[2] - e[3] for e in evals], [e[4] - e[2] for e in evals]]
        axes[2].errorbar(xs, means, yerr=errs, fmt="o", capsize=3, color="tab:green")
        axes[2].axhline(0.0, color="black", lw=0.8)
        references = " / ".join(sorted({e[1] for e in evals}))
        axes[2].set_ylabel(f"minus {references}\n(points/game, 95 % CI)")
    axes[-1].set_xlabel("CPU-hours of training")
    axes[0].set_title(
        f"{args.progress.parent.name}: {decisions[-1]:,.0f} decisions, {hours[-1]:.2f} CPU-hours"
    )
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out} ({len(rows)} updates, {len(evals)} evaluations)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
