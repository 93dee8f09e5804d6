"""The flagship agent's learning curve: behaviour cloning, then PPO near the clone.

Reads the cloning report (``python -m agents.train.imitation clone --json``), the PPO run's TensorBoard
logs (``train.py`` writes them under ``runs/NAME/tb_*``) and any number of duplicate-deal
evaluation reports tagged with the learner step they measured, and draws three panels:

1. cloning: held-out agreement with ``strong`` per epoch;
2. PPO: the learner's mean relative reward per round (points, the others' mean minus its own:
   higher is better) against its opponent pool, and the KL to the clone;
3. duplicate deals against three ``strong``: the paired difference (points per game, lower is
   better) with its 95 % interval at each evaluated step.

    python scripts/plot_learning.py --clone results/learn_bc400.json --run runs/learn/ppo_kl400 \\
        --evals 0=results/learn_bc400_vs_strong_100.json,... --out results/learn_curve.png \\
        --json results/learn_curve.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def read_scalars(run: Path, tags: tuple[str, ...]) -> dict[str, list[tuple[int, float]]]:
    """(step, value) series of ``tags`` from every TensorBoard event file under ``run``."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    out: dict[str, dict[int, float]] = {t: {} for t in tags}
    for events in sorted(run.glob("tb_*")):
        acc = EventAccumulator(str(events), size_guidance={"scalars": 0})
        acc.Reload()
        have = set(acc.Tags().get("scalars", []))
        for tag in tags:
            if tag in have:
                for e in acc.Scalars(tag):
                    out[tag][e.step] = e.value  # a resumed run logs later steps again: keep last
    return {t: sorted(series.items()) for t, series in out.items()}


def evaluation_points(specs: str) -> list[dict[str, Any]]:
    """``STEP=report.json,...`` into (step, paired difference vs strong, interval)."""
    points = []
    for item in (s for s in specs.split(",") if s):
        step, sep, path = item.partition("=")
        if not sep or not step.isdigit() or not Path(path).is_file():
            raise ValueError(f"--evals {item!r}: expected STEP=existing_report.json")
        report = json.loads(Path(path).read_text())
        paired = report["paired"]["strong"]
        points.append(
            {
                "step": int(step),
                "deals": report["config"]["deals"],
                "diff": paired["mean_diff"],
                "ci95": paired["ci95"],
                "report": path,
            }
        )
    return sorted(points, key=lambda p: p["step"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clone", required=True, help="the cloning report (JSON)")
    parser.add_argument("--run", required=True, help="the PPO run directory")
    parser.add_argument("--evals", default="", help="STEP=report.json, comma separated")
    parser.add_argument("--out", required=True, help="the PNG to write")
    parser.add_argument("--json", default="", help="also write the plotted series here")
    args = parser.parse_args(argv)
    try:
        clone = json.loads(Path(args.clone).read_text())
        run = Path(args.run)
        if not run.is_dir():
            raise ValueError(f"--run {args.run}: no such run directory")
        evals = evaluation_points(args.evals)
    except (OSError, ValueError, KeyError) as exc:
        parser.error(str(exc))
    scalars = read_scalars(run, ("rollout/ep_rew_mean", "train/kl_to_reference"))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    epochs = clone["epochs"]
    ax = axes[0]
    ax.plot([e["epoch"] for e in epochs], [e["heldout"]["accuracy"] for e in epochs], "o-",
            label="held out")  # fmt: skip
    ax.plot([e["epoch"] for e in epochs], [e["train"]["accuracy"] for e in epochs], "s--",
            label="training sample")  # fmt: skip
    ax.set(title="1. cloning strong", xlabel="epoch", ylabel="agreement with strong (top-1)")
    ax.legend()
    ax.grid(alpha=0.3)

    ax = axes[1]
    reward = scalars["rollout/ep_rew_mean"]
    if reward:
        ax.plot([s for s, _ in reward], [100 * v for _, v in reward], color="tab:blue")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set(title="2. PPO near the clone", xlabel="learner steps",
           ylabel="relative points per round (higher is better)")  # fmt: skip
    kl = scalars["train/kl_to_reference"]
    if kl:
        twin = ax.twinx()
        twin.plot([s for s, _ in kl], [v for _, v in kl], color="tab:orange", alpha=0.7)
        twin.set_ylabel("KL(clone || policy), nats", color="tab:orange")
    ax.grid(alpha=0.3)

    ax = axes[2]
    if evals:
        xs = [p["step"] for p in evals]
        ys = [p["diff"] for p in evals]
        err = [
            [y - p["ci95"][0] for y, p in zip(ys, evals, strict=True)],
            [p["ci95"][1] - y for y, p in zip(ys, evals, strict=True)],
        ]
        ax.errorbar(xs, ys, yerr=err, fmt="o", capsize=4)
        for p in evals:
            ax.annotate(f"{p['deals']} deals", (p["step"], p["diff"]), textcoords="offset points",
                        xytext=(6, 6), fontsize=8)  # fmt: skip
    ax.axhline(0, color="grey", lw=0.8)
    ax.set(title="3. against three strong (duplicate deals)", xlabel="learner steps",
           ylabel="agent - strong, points/game (lower is better)")  # fmt: skip
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "clone": {"report": args.clone, "epochs": epochs},
                    "ppo": {
                        "run": args.run,
                        **{k: [list(p) for p in v] for k, v in scalars.items()},
                    },
                    "evaluations": evals,
                },
                indent=1,
            )
        )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
