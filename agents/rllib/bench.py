"""Throughput of RLlib training against ``train.py`` on this machine (``python -m agents.rllib.bench``).

For each env runner count, builds the RLlib configuration of ``continental train-rllib`` (4
players, every round, three ``greedy`` seats and one learner seat per game, MLP 256-256), then

- **sampling**: every env runner samples ``--steps`` env steps in parallel after a warm-up;
  steps per second of wall time (RLlib's env steps: the learner's decisions; greedy seats act
  inside the environment, as in ``train.py``);
- **training**: ``--iterations`` timed iterations of ``Algorithm.train()`` (sampling plus PPO
  updates) after one warm-up iteration; env steps per second of wall time.

``--train-py`` also times ``agents.train.sb3`` (MaskablePPO, the same table, network and opponents,
one ``SubprocVecEnv`` worker per environment) at the given environment counts: two runs of N
and 2N learner steps, the rate is N / (time(2N) - time(N)), which cancels start-up and the
final save. Writes a JSON report and a bar chart.

    OMP_NUM_THREADS=1 .venv-rllib/bin/python -m agents.rllib.bench --runners 1,2 \\
        --json results/rllib_throughput.json --plot results/rllib_throughput.png
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

from agents.cli import ArgumentParser


def bench_rllib(runners: int, envs: int, steps: int, iterations: int, batch: int) -> dict[str, Any]:
    """Sampling and training throughput with ``runners`` env runners of ``envs`` environments."""
    import ray

    from agents.rllib.train import build_config

    cfg = {
        "players": 4,
        "preset": "continental",
        "rounds": None,
        "reward": "relative",
        "opponents": ["greedy"],
        "num_env_runners": runners,
        "num_envs_per_runner": envs,
        "train_batch_size": batch,
        "minibatch_size": min(1024, batch),
        "num_epochs": 4,
        "lr": 3e-4,
        "gamma": 0.995,
        "entropy_coeff": 0.01,
        "hidden": [256, 256],
        "activation": "relu",
        "snapshot_margin": 2.0,
        "max_snapshots": 8,
        "seed": 1,
    }
    ray.init(
        num_cpus=max(os.cpu_count() or 1, runners + 1),
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
    )
    try:
        with tempfile.TemporaryDirectory() as run_dir:
            algo = build_config(cfg, run_dir).build_algo()
            group = algo.env_runner_group
            per_runner = max(1, steps // max(1, runners))

            def sample(runner: Any) -> int:
                if getattr(runner, "env", None) is None:
                    return 0
                return int(sum(e.env_steps() for e in runner.sample(num_timesteps=per_runner)))

            local = runners == 0
            group.foreach_env_runner(sample, local_env_runner=local)  # warm-up
            t0 = time.perf_counter()
            sampled = sum(group.foreach_env_runner(sample, local_env_runner=local))
            sample_s = time.perf_counter() - t0
            algo.train()  # warm-up iteration
            t0 = time.perf_counter()
            trained = 0
            for _ in range(iterations):
                result = algo.train()
                trained += int(result["env_runners"]["num_env_steps_sampled"])
            train_s = time.perf_counter() - t0
            algo.stop()
    finally:
        ray.shutdown()
    return {
        "env_runners": runners,
        "envs_per_runner": envs,
        "sampled_steps": sampled,
        "sample_seconds": sample_s,
        "sample_steps_per_s": sampled / sample_s,
        "train_batch_size": batch,
        "train_iterations": iterations,
        "trained_steps": trained,
        "train_seconds": train_s,
        "train_steps_per_s": trained / train_s,
    }


def _time_train_py(num_envs: int, steps: int, workdir: str, python: str) -> float:
    cmd = [
        python, "-m", "agents.train.sb3", "--opponents", "greedy", "--players", "4",
        "--num-envs", str(num_envs), "--total-timesteps", str(steps), "--eval-every", "0",
        "--no-progress", "--runs-dir", workdir, "--run-name", f"n{num_envs}_{steps}",
        "--n-steps", "512", "--batch-size", "1024",
        "--no-features",  # the RLlib env observes continental_v0: like for like
    ]  # fmt: skip
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def bench_train_py(num_envs: int, steps: int, python: str = sys.executable) -> dict[str, Any]:
    """``agents.train.sb3``'s learner steps per second: N / (time(2N) - time(N))."""
    with tempfile.TemporaryDirectory() as workdir:
        short = _time_train_py(num_envs, steps, workdir, python)
        long = _time_train_py(num_envs, 2 * steps, workdir, python)
    return {
        "num_envs": num_envs,
        "steps": steps,
        "seconds_n": short,
        "seconds_2n": long,
        "steps_per_s": steps / (long - short) if long > short else None,
    }


def plot(report: dict[str, Any], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels, sample, train = [], [], []
    for r in report["rllib"]:
        labels.append(f"RLlib\n{r['env_runners']} runner(s) x {r['envs_per_runner']}")
        sample.append(r["sample_steps_per_s"])
        train.append(r["train_steps_per_s"])
    for r in report.get("train_py", []):
        labels.append(f"train.py\n{r['num_envs']} env worker(s)")
        sample.append(0.0)
        train.append(r["steps_per_s"] or 0.0)
    x = range(len(labels))
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.bar([i - 0.2 for i in x], sample, 0.4, label="sampling only")
    ax.bar([i + 0.2 for i in x], train, 0.4, label="training (sampling + updates)")
    ax.set_xticks(list(x), labels, fontsize=8)
    ax.set_ylabel("learner env steps per second")
    end = report.get("load_at_end")
    machine = report["machine"] + (f", {end:.1f} at end" if end is not None else "")
    ax.set_title(f"Throughput, 4 players, greedy opponents ({machine})")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _no_nan(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _no_nan(v) for k, v in x.items()}
    if isinstance(x, float) and x != x:
        return None
    return x


def plot_curve(run_dir: str, json_path: str, png_path: str) -> None:
    """The run's ``progress.jsonl`` as a JSON list and a plot of the learner's margins."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    with open(os.path.join(run_dir, "progress.jsonl")) as fh:
        lines = [json.loads(x) for x in fh if x.strip()]
    lines = [_no_nan(x) for x in lines]  # NaN (nothing measured that iteration) as null
    with open(os.path.join(run_dir, "run.json")) as fh:
        config = json.load(fh)
    if json_path:
        with open(json_path, "w") as fh:
            json.dump(
                {"run": os.path.basename(run_dir), "config": config, "progress": lines},
                fh,
                indent=1,
            )
    steps = [x["env_steps"] for x in lines]
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for role in sorted({r for x in lines for r in x["margins"]}):
        ax.plot(steps, [x["margins"].get(role) for x in lines], label=f"vs {role} seats")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_ylabel("their points - learner's\nper round (last 100 games)")
    ax.set_title(
        f"RLlib self-play, {config['players']} players, opponents {','.join(config['opponents'])}"
    )
    ax.legend()
    frozen = np.cumsum([bool(x["frozen"]) for x in lines])
    ax2.plot(steps, frozen, color="tab:green", label="snapshots frozen so far")
    ax2.plot(
        steps, [x["pool_size"] for x in lines], color="tab:olive", ls="--", label="in the pool"
    )
    ax2.set_ylabel("snapshots")
    ax2.legend()
    ax2.set_xlabel("env steps (learner decisions)")
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)


def build_parser() -> ArgumentParser:
    p = ArgumentParser(prog="python -m agents.rllib.bench", description=__doc__.split("\n")[0])
    p.add_argument("--runners", default="1,2", help="env runner counts (default: 1,2)")
    p.add_argument("--envs-per-runner", type=int, default=4, help="environments per runner")
    p.add_argument("--steps", type=int, default=8000, help="env steps sampled per measurement")
    p.add_argument("--iterations", type=int, default=3, help="timed training iterations")
    p.add_argument("--batch", type=int, default=8000, help="env steps per training iteration")
    p.add_argument("--train-py", default="", help="also time agents.train.sb3 at these env counts")
    p.add_argument(
        "--train-py-python",
        default=sys.executable,
        help="the interpreter with the [train] extra for agents.train.sb3 (default: this one)",
    )
    p.add_argument("--train-py-steps", type=int, default=16384, help="N for agents.train.sb3")
    p.add_argument("--json", default="", help="write the report here")
    p.add_argument("--plot", default="", help="write a bar chart here (.png)")
    p.add_argument("--curve", default="", help="instead: plot this run directory's progress")
    p.add_argument("--curve-json", default="", help="with --curve: write its progress here")
    return p


def check_counts(args: argparse.Namespace, p: ArgumentParser) -> tuple[list[int], list[int]]:
    """The RLlib runner counts and the train.py env counts; ``p.error`` on a bad flag."""
    try:
        counts = [int(x) for x in args.runners.split(",")]
        train_counts = [int(x) for x in args.train_py.split(",")] if args.train_py else []
    except ValueError:
        p.error(f"--runners {args.runners!r} / --train-py {args.train_py!r}: give counts like 1,2")
    if any(c < 0 for c in counts) or any(c < 1 for c in train_counts):
        p.error("--runners must be 0 or more and --train-py counts at least 1")
    for flag in ("envs_per_runner", "steps", "iterations", "batch", "train_py_steps"):
        if getattr(args, flag) < 1:
            p.error(f"--{flag.replace('_', '-')} {getattr(args, flag)}: must be at least 1")
    return counts, train_counts


def main(argv: Sequence[str] | None = None) -> int:
    p = build_parser()
    args = p.parse_args(argv)
    if args.curve:
        if not args.plot:
            p.error("--curve needs --plot")
        plot_curve(args.curve, args.curve_json, args.plot)
        return 0
    counts, train_counts = check_counts(args, p)
    load = os.getloadavg()[0]
    report: dict[str, Any] = {
        "machine": f"{os.cpu_count()} cores, load {load:.1f} at start",
        "rllib": [],
        "train_py": [],
    }
    for n in counts:
        r = bench_rllib(n, args.envs_per_runner, args.steps, args.iterations, args.batch)
        print(
            f"RLlib {n} runner(s) x {args.envs_per_runner}: sampling {r['sample_steps_per_s']:,.0f} "
            f"steps/s, training {r['train_steps_per_s']:,.0f} steps/s",
            flush=True,
        )
        report["rllib"].append(r)
    for n in train_counts:
        r = bench_train_py(n, args.train_py_steps, args.train_py_python)
        print(f"train.py {n} env worker(s): {r['steps_per_s'] or 0:,.0f} steps/s", flush=True)
        report["train_py"].append(r)
    report["load_at_end"] = os.getloadavg()[0]
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=2, default=float)
    if args.plot:
        plot(report, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
