"""Multi-agent self-play with action masking on Ray RLlib (``continental train-rllib``).

``train.py`` trains one learner on one machine. This command trains the same game on Ray RLlib's
new API stack (RLModules, env runners, a Learner), which spreads the sampling over processes and
machines of a Ray cluster:

    continental train-rllib --opponents self,snapshots,greedy --max-minutes 50
    continental train-rllib --resume runs/rllib_NAME --max-minutes 30        # continue it
    continental train-rllib --address auto ...        # join a cluster started with `ray start`

(``python -m agents.rllib`` is the same command; it needs the ``[rllib]`` extra, installed in its
own virtualenv with ``-c constraints-rllib.txt``.)

**Environment.** ``continental_env.env(...)`` goes through RLlib's own ``PettingZooEnv`` (the AEC
adapter: one agent acts per step, rewards reach an agent when it next acts or when the game ends).
``RLlibObservation`` renames the observation to ``observations`` beside a float ``action_mask``,
the layout of RLlib's action-masking RLModule (``ActionMaskingTorchRLModule``), which adds
``log(mask)`` to the logits: illegal actions get probability zero, in sampling and in the loss.

**Seats.** Every game, one random seat is the learner; each other seat draws from
``--opponents``: ``self`` (the learner again, parameters shared: all its seats are RLlib agents
mapped to the ``learner`` module and trained), ``snapshots`` (a frozen past learner from the pool;
the learner itself until the pool has one), or a bot name (``random``, ``greedy``, ``strong``),
which acts from the engine's seat view (``agents.contract.view.PlayerView``) inside the environment, as in
``agents.train.single_agent``. Frozen seats never reach the learner's batch.

**Self-play.** ``SelfPlayCallback`` logs, per game, how many points per round the snapshot seats
lost more than the learner's seats (``margin_vs_snapshots``). After an iteration where that
margin, over the last 100 such games, is at least ``--snapshot-margin``, it freezes the learner
into the pool (``snapshots/NNN.npz``, at most ``--max-snapshots``, oldest dropped) and sends the
pool to every env runner. The first snapshot is taken after the first iteration.

**Run directory** (``runs/rllib_NAME``): ``run.json`` (the configuration), ``progress.jsonl``
(one line per iteration: steps, throughput, returns, margins), ``checkpoints/latest`` and
``checkpoints/prev`` (RLlib checkpoints, ``Algorithm.save_to_path``, written to a temporary
directory and renamed), ``snapshots/`` and ``policy.npz``, the learner's actor exported for
``make_agent("rllib:runs/rllib_NAME")``, which needs neither ray nor torch
(``agents.bots.rllib_agent``). ``--resume`` restores the algorithm (weights, optimizer, counters) and
the snapshot pool, and continues; SIGTERM or Ctrl-C ends after the current iteration with a
checkpoint.

This module is the command (checkpoints, the training loop, ``main``); its parts live beside it:
``agents.rllib.env`` (the environment and the seat roles), ``agents.rllib.policy`` (the actor's
export and the self-play pool) and ``agents.rllib.config`` (the flags, their checks and the
``PPOConfig``). Their public names are importable from here too.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import sys
import time
from collections.abc import Sequence
from typing import Any, NoReturn

from agents.bots.ppo_agent import model_metadata
from agents.bots.rllib_agent import CHECKPOINT_POLICY, RUN_POLICY, TRAINER
from agents.rllib.config import (
    ADDRESS_RE,
    DESCRIPTION,
    _to_learner,  # noqa: F401 (RLlib checkpoints from before the split pickle it under this name)
    build_config,
    build_parser,
    check_args,
)
from agents.rllib.env import (
    BOTS,
    ENV_ID,
    LEARNER,
    ROLES,
    SELF,
    SNAPSHOTS,
    ContinentalMultiAgentEnv,
    RLlibObservation,
    make_aec_env,
)
from agents.rllib.policy import (
    SelfPlayCallback,
    SnapshotPool,
    actor_weights,
    export_policy,
    module_logits,
    push_pool,
)

__all__ = [
    "ADDRESS_RE",
    "BOTS",
    "DESCRIPTION",
    "ENV_ID",
    "INSTALL_HINT",
    "LEARNER",
    "ROLES",
    "SELF",
    "SNAPSHOTS",
    "ContinentalMultiAgentEnv",
    "RLlibObservation",
    "SelfPlayCallback",
    "SnapshotPool",
    "actor_weights",
    "build_config",
    "build_parser",
    "check_args",
    "export_policy",
    "format_summary",
    "init_ray",
    "main",
    "make_aec_env",
    "module_logits",
    "push_pool",
    "restore_checkpoint",
    "save_checkpoint",
    "summarize",
    "train",
]

INSTALL_HINT = (
    "Ray RLlib is not installed: python3 -m venv .venv-rllib && "
    '.venv-rllib/bin/pip install -c constraints-rllib.txt -e ".[rllib,dev]"'
)


# ----------------------------------------------------------------------------- checkpoints


def save_checkpoint(algo: Any, run_dir: str, meta: dict[str, Any]) -> str:
    """``checkpoints/latest`` (the one before kept as ``prev``), written to a temporary name first;
    the actor exported into it and to ``RUN/policy.npz``."""
    ckpt_dir = os.path.join(run_dir, "checkpoints")
    os.makedirs(ckpt_dir, exist_ok=True)
    tmp = os.path.join(ckpt_dir, f".tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(os.path.abspath(tmp))
    module = algo.get_module(LEARNER)
    meta = {**meta, "iteration": int(algo.iteration)}
    export_policy(module, os.path.join(tmp, CHECKPOINT_POLICY), meta)
    latest = os.path.join(ckpt_dir, "latest")
    prev = os.path.join(ckpt_dir, "prev")
    if os.path.isdir(latest):
        shutil.rmtree(prev, ignore_errors=True)
        os.replace(latest, prev)
    os.replace(tmp, latest)
    shutil.copyfile(
        os.path.join(latest, CHECKPOINT_POLICY), os.path.join(run_dir, f".{RUN_POLICY}")
    )
    os.replace(os.path.join(run_dir, f".{RUN_POLICY}"), os.path.join(run_dir, RUN_POLICY))
    return latest


def restore_checkpoint(algo: Any, run_dir: str) -> str:
    """Restore from ``latest``, or from ``prev`` if the latest cannot be read."""
    errors = []
    for name in ("latest", "prev"):
        path = os.path.join(run_dir, "checkpoints", name)
        if not os.path.isdir(path):
            continue
        try:
            algo.restore_from_path(os.path.abspath(path))
            return path
        except Exception as exc:  # a damaged checkpoint: fall back to the one before
            errors.append(f"{name}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
    raise ValueError(f"--resume {run_dir}: no readable checkpoint ({'; '.join(errors) or 'none'})")


# ----------------------------------------------------------------------------- training


def _log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def _fail(message: str) -> NoReturn:
    """One line on stderr and exit status 2, as the flag checks."""
    print(f"continental train-rllib: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def init_ray(address: str | None, cpus: int, runners: int) -> None:
    """Join ``address`` or start a local Ray with enough CPUs for the env runners."""
    import ray

    quiet = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    if address and address not in ("auto", "local"):
        # ray.init retries an unreachable head for minutes; a plain connect answers in seconds.
        host, _, port = address.removeprefix("ray://").rpartition(":")
        try:
            socket.create_connection((host, int(port)), timeout=10).close()
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            _fail(f"--address {address!r}: no Ray head answers there ({reason})")
    if ray.is_initialized():  # a caller (a test, a notebook) already connected
        return
    try:
        if address:
            ray.init(address=address, **quiet)
        else:
            # Ray starts its workers at niceness 15 by default; the env runners do most of the
            # work here, so they run at the driver's own priority (``nice`` the command instead).
            os.environ.setdefault("RAY_worker_niceness", "0")
            ray.init(num_cpus=cpus or max(os.cpu_count() or 1, runners + 1), **quiet)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        _fail(f"--address {address!r}: {first}" if address else f"cannot start Ray: {first}")


def train(
    cfg: dict[str, Any], run_dir: str, stop: dict[str, float], resume: bool
) -> dict[str, Any]:
    """Train until a stop condition; returns the last iteration's summary."""
    os.makedirs(run_dir, exist_ok=True)
    algo = build_config(cfg, run_dir).build_algo()
    meta = {
        **model_metadata(cfg["players"], cfg["preset"], cfg["rounds"]),
        "trainer": TRAINER,
        "opponents": cfg["opponents"],
    }
    if resume:
        path = restore_checkpoint(algo, run_dir)
        _log(f"resumed {path} at iteration {algo.iteration}")
    pool = SnapshotPool(run_dir, cfg["max_snapshots"])
    if pool.files():
        push_pool(algo, pool.load())
    stopping = {"signal": None}

    def on_signal(signum: int, frame: Any) -> None:
        stopping["signal"] = signum
        _log("stopping after this iteration (a checkpoint follows)")

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    progress_path = os.path.join(run_dir, "progress.jsonl")
    start = time.perf_counter()
    summary: dict[str, Any] = {}
    first_iter = algo.iteration
    last_saved = algo.iteration
    try:
        while True:
            t0 = time.perf_counter()
            result = algo.train()
            seconds = time.perf_counter() - t0
            summary = summarize(result, seconds, time.perf_counter() - start)
            with open(progress_path, "a") as fh:
                fh.write(json.dumps(summary, default=_plain) + "\n")
            _log(format_summary(summary))
            done = stopping["signal"] is not None
            done |= bool(stop["iterations"]) and algo.iteration >= stop["iterations"]
            done |= bool(stop["total_steps"]) and summary["env_steps"] >= stop["total_steps"]
            done |= (
                bool(stop["max_minutes"])
                and time.perf_counter() - start >= 60 * stop["max_minutes"]
            )
            if done or algo.iteration - last_saved >= cfg["checkpoint_every"]:
                path = save_checkpoint(algo, run_dir, meta)
                last_saved = algo.iteration
                _log(f"checkpoint {path} (iteration {algo.iteration})")
            if done:
                break
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        if algo.iteration > first_iter and last_saved != algo.iteration:
            with contextlib.suppress(Exception):
                save_checkpoint(algo, run_dir, meta)
        algo.stop()
    return summary


def _plain(x: Any) -> Any:
    """numpy scalars as Python numbers, for JSON."""
    return x.item() if hasattr(x, "item") else str(x)


def _number(x: Any) -> float | None:
    """A float, or None for a missing or NaN metric (no game of that kind in the window)."""
    return None if x is None or x != x else float(x)


def summarize(result: dict[str, Any], seconds: float, elapsed: float) -> dict[str, Any]:
    """One progress line: counters, throughput, the learner's return and margins."""
    runners = result.get("env_runners", {})
    sampled = runners.get("num_env_steps_sampled", 0)
    summary = {
        "iteration": result.get("training_iteration"),
        "env_steps": runners.get("num_env_steps_sampled_lifetime", 0),
        "env_steps_this_iter": sampled,
        "iter_seconds": seconds,
        "elapsed_seconds": elapsed,
        "steps_per_s": sampled / seconds if seconds > 0 else None,
        "episodes": runners.get("num_episodes_lifetime"),
        "learner_return": _number(runners.get("module_episode_returns_mean", {}).get(LEARNER)),
        "learner_points_per_game": _number(runners.get("learner_points_per_game")),
        "margins": {  # NaN (no such game in the window) as null
            k[len("margin_vs_") :]: _number(v)
            for k, v in runners.items()
            if k.startswith("margin_vs_")
        },
        "pool_size": result.get("selfplay", {}).get("pool_size", 0),
        "frozen": result.get("selfplay", {}).get("frozen", False),
    }
    return summary


def format_summary(s: dict[str, Any]) -> str:
    def num(x: Any, fmt: str) -> str:
        return "-" if x is None else format(x, fmt)

    margins = " ".join(f"{k} {num(v, '+.1f')}" for k, v in sorted(s["margins"].items()))
    return (
        f"iter {s['iteration']} | env steps {int(s['env_steps']):,} | "
        f"{num(s['steps_per_s'], ',.0f')} steps/s | "
        f"learner return {num(s['learner_return'], '+.3f')} | "
        f"margin pts/round {margins or '-'} | pool {s['pool_size']}{' +1' if s['frozen'] else ''}"
    )


def _restore_settings(args: argparse.Namespace, saved: dict[str, Any], given: set[str]) -> None:
    """A resumed run's saved settings onto ``args``, unless given again on the command line."""
    for key, value in saved.items():
        flag = "--" + key.replace("_", "-")
        if (
            flag not in given
            and hasattr(args, key)
            and key not in ("rounds", "hidden", "opponents")
        ):
            setattr(args, key, value)
    for key in ("rounds", "opponents", "hidden"):
        if "--" + key not in given:
            value = saved[key]
            setattr(args, key, "all" if value is None else ",".join(str(v) for v in value))


def _saved_run(args: argparse.Namespace, parser: Any, argv: Sequence[str] | None) -> dict:
    """The ``run.json`` of ``--resume`` (its settings restored onto ``args``); {} without it."""
    if not args.resume:
        return {}
    if not os.path.isfile(os.path.join(args.resume, "run.json")):
        parser.error(f"--resume {args.resume!r}: not a run directory (no run.json)")
    with open(os.path.join(args.resume, "run.json")) as fh:
        saved = json.load(fh)
    words = argv if argv is not None else sys.argv[1:]
    _restore_settings(args, saved, {a.split("=")[0] for a in words if a.startswith("--")})
    return saved


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    saved = _saved_run(args, parser, argv)
    cfg = check_args(args, parser)
    if args.resume:
        run_dir = args.resume
        fixed = ("players", "preset", "rounds", "hidden", "activation")
        changed = [k for k in fixed if cfg[k] != saved[k]]
        if changed:
            parser.error(f"--resume {run_dir!r}: cannot change {', '.join(changed)} of a run")
    else:
        name = args.run_name or time.strftime("rllib_%Y%m%d_%H%M%S")
        run_dir = os.path.join(args.runs_dir, name)
        if os.path.exists(os.path.join(run_dir, "run.json")):
            parser.error(f"--run-name {name!r}: {run_dir} exists; continue it with --resume")
    try:
        import ray
        import ray.rllib  # noqa: F401
    except ImportError:
        print(f"continental train-rllib: error: {INSTALL_HINT}", file=sys.stderr)
        return 2
    init_ray(args.address, args.cpus, cfg["num_env_runners"])
    os.makedirs(run_dir, exist_ok=True)
    tmp = os.path.join(run_dir, ".run.json.tmp")
    with open(tmp, "w") as fh:
        json.dump(cfg, fh, indent=2)
    os.replace(tmp, os.path.join(run_dir, "run.json"))
    _log(
        f"run {run_dir}: {cfg['players']} players, opponents {','.join(cfg['opponents'])}, "
        f"{cfg['num_env_runners']} env runner(s) x {cfg['num_envs_per_runner']} env(s)"
    )
    stop = {
        "iterations": args.iterations,
        "total_steps": args.total_steps,
        "max_minutes": args.max_minutes,
    }
    summary = train(cfg, run_dir, stop, resume=bool(args.resume))
    _log(f"done: {summary.get('env_steps', 0):,} env steps; play it as rllib:{run_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
