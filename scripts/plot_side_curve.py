"""A side-game agent's learning curve from its ``train.py --game`` run directory.

Two panels: the warm start (behaviour cloning of the teacher: policy loss and the share of the
teacher's decisions given probability over one half, per minibatch step, and, where the run
held decisions out, the share of those where the clone's top action is the teacher's, per epoch;
from ``runs/NAME/bc``),
and PPO (the learner's mean episode reward against its pool and the periodic duplicate-deal
evaluation's paired difference against ``--eval-opponent``, from ``runs/NAME/tb_*``).

    python scripts/plot_side_curve.py --run runs/side_knock_4p --out results/side_knock_curve.png \\
        --json results/side_knock_curve.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def read_scalars(directory: Path, tags: tuple[str, ...]) -> dict[str, list[tuple[int, float]]]:
    """(step, value) series of ``tags`` from the TensorBoard event files under ``directory``."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    out: dict[str, dict[int, float]] = {t: {} for t in tags}
    for events in sorted({p.parent for p in directory.rglob("events.out.tfevents.*")}):
        acc = EventAccumulator(str(events), size_guidance={"scalars": 0})
        acc.Reload()
        have = set(acc.Tags().get("scalars", []))
        for tag in tags:
            if tag in have:
                for e in acc.Scalars(tag):
                    out[tag][e.step] = e.value
    return {t: sorted(series.items()) for t, series in out.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--run", required=True, help="the train.py run directory")
    parser.add_argument("--out", required=True, help="the PNG to write")
    parser.add_argument("--json", default="", help="also write the plotted series here")
    args = parser.parse_args(argv)
    run = Path(args.run)
    if not run.is_dir():
        parser.error(f"--run {run}: no such directory")
    config = json.loads((run / "config.json").read_text())
    bc = read_scalars(
        run / "bc",
        ("bc/policy_loss", "bc/teacher_prob_over_half", "bc/heldout_top_action_accuracy"),
    )
    ppo = read_scalars(run, ("rollout/ep_rew_mean",))
    opponent = config["eval_opponent"]
    evals = read_scalars(run, (f"eval/diff_vs_{opponent}",))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for tag, label in (("bc/policy_loss", "policy loss"),
                       ("bc/teacher_prob_over_half", "teacher's move p > 0.5"),
                       ("bc/heldout_top_action_accuracy",
                        "held-out decisions: top action = teacher's")):  # fmt: skip
        if bc[tag]:
            xs, ys = zip(*bc[tag], strict=True)
            ax1.plot(xs, ys, "o-" if "heldout" in tag else "-", label=label, markersize=3)
    ax1.set_title(f"warm start: cloning {config['bc_teacher'] or '(none)'}")
    ax1.set_xlabel("minibatch step")
    ax1.legend()
    if ppo["rollout/ep_rew_mean"]:
        xs, ys = zip(*ppo["rollout/ep_rew_mean"], strict=True)
        ax2.plot(xs, ys, label=f"episode reward vs {config['opponents']}")
    series = evals[f"eval/diff_vs_{opponent}"]
    if series:
        xs, ys = zip(*series, strict=True)
        ax2.plot(xs, ys, "o-", label=f"duplicate deals: chips/game minus {opponent}")
    ax2.axhline(0, color="grey", lw=0.8)
    ax2.set_title(f"PPO, {config['game']} ({config['game_options'] or 'default options'})")
    ax2.set_xlabel("learner steps")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    if args.json:
        data = {"config": config, "bc": bc, "ppo": ppo, "eval": evals}
        Path(args.json).write_text(json.dumps(data, indent=1))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
