"""Train a MaskablePPO agent for Continental (sb3-contrib), CleanRL style.

The learner observes ``continental_v1`` (the v0 vector followed by the derived features of
``continental_env.contract.features``; ``--no-features`` trains on ``continental_v0``) and plays one random
seat of a table whose other seats are opponents from a pool
(``agents.train.single_agent.make_env``): heuristic bots by name (``agents.make_agent``) and ``self``,
frozen snapshots of the learner taken every ``--snapshot-every`` steps. Rewards are the learner's
per-round relative rewards ((mean of the others' points - own points) / 100 at each round's end).

    continental train --opponents greedy --total-timesteps 5000000      # a run in runs/NAME
    continental train --resume runs/NAME --total-timesteps 8000000     # continue it
    tensorboard --logdir runs
    continental train --game knock --opponents greedy,strong,self    # the knock game (Part 3)

``--game fifteen|knock`` trains a side game's learner seat (``agents.train.side_single_agent``: chips
rewards, ``--game-options`` such as ``hands=1`` or ``stake=50``); ``--preset``, ``--rounds``,
``--round-episodes`` and ``--features`` are the contract game's and refused with another game
(``agents.train.config.RULES_FLAGS``, ``OPTIONS_FLAGS``); ``--bc-teacher`` clones a side game's
bot. Checkpoints, resume and snapshots work the same, and the models record their game
(``side_metadata``).

(``python train.py ...`` and ``python -m agents.train ...`` are the same command.) Every flag is
checked before anything is created: a bad value is one line naming the flag (exit status 2) and
leaves no run directory.

A run directory holds TensorBoard logs, ``checkpoints/last.zip`` + ``last.json`` +
``last.rng.json`` (written every ``--checkpoint-every`` steps, atomically; the one before is kept as ``prev.*``, and ``--resume``
falls back to it if the latest cannot be read), ``checkpoints/best.zip`` (best periodic
evaluation against ``--eval-opponent`` on duplicate deals) and ``snapshots/*.npz``. Every model
zip records the environment, its version and the table size it was trained for
(``agents.bots.ppo_agent.model_metadata``). ``--resume`` restores the model, the step counter, the
configuration (flags given on the command line override it, e.g. a new opponent pool) and the RNG
states, and continues training without resetting the counter; nothing it reads is unpickled
(``agents.train.checkpoints.load_model``, ``last.rng.json``). SIGTERM or Ctrl-C (SIGINT), to the
process or its whole process group, finishes the current step, writes the final checkpoint and
exits with status 0 (the environment workers ignore both). The periodic evaluation plays the
training task (``task_options``); a progress line gives the time left. Play a checkpoint with
``ppo:runs/NAME/checkpoints/best.zip`` in ``agents.evaluate.harness``.

This module is the command (``parse_args``, ``train``, ``main``); its parts live beside it:

| module | what |
|---|---|
| ``agents.train.config`` | ``Config`` (every flag with its help text), the parser, the checks |
| ``agents.train.checkpoints`` | atomic save, the newest readable checkpoint, RNG states |
| ``agents.train.warm_start`` | the behaviour-cloning warm start (``--bc-teacher``) |
| ``agents.train.callback`` | the callback, the stop request, the vectorised environments |

Their public names are importable from here too.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from agents.games import DEFAULT_GAME
from agents.train.callback import (
    MasksFromInfo,
    StopRequest,
    TrainingCallback,
    evaluate_policy,
    make_vec_env,
)
from agents.train.checkpoints import (
    CHECKPOINT_FILES,
    RESUME_ORDER,
    SB3_MEMBERS,
    find_checkpoint,
    load_model,
    policy_class,
    policy_kwargs,
    read_rng,
    restore_rng,
    save_checkpoint,
)
from agents.train.config import (
    DESCRIPTION,
    Config,
    build_parser,
    check_init_policy,
    check_writable_dir,
    opt,
    parse_ints,
    run_metadata,
    side_options,
    validate,
    validate_side,
)
from agents.train.warm_start import (
    behaviour_cloning,
    heldout_accuracy,
    load_bc_data,
    save_bc_data,
    suit_relabellings,
    teacher_decisions,
)

__all__ = [
    "CHECKPOINT_FILES",
    "DESCRIPTION",
    "RESUME_ORDER",
    "SB3_MEMBERS",
    "Config",
    "MasksFromInfo",
    "StopRequest",
    "TrainingCallback",
    "behaviour_cloning",
    "build_parser",
    "check_init_policy",
    "check_writable_dir",
    "evaluate_policy",
    "find_checkpoint",
    "finished_message",
    "heldout_accuracy",
    "load_bc_data",
    "main",
    "make_vec_env",
    "opt",
    "parse_args",
    "parse_ints",
    "read_rng",
    "restore_rng",
    "run_metadata",
    "save_bc_data",
    "save_checkpoint",
    "side_options",
    "suit_relabellings",
    "teacher_decisions",
    "train",
    "validate",
    "validate_side",
]


def parse_args(argv: list[str] | None = None) -> tuple[Config, set[str], dict[str, Any]]:
    """The checked config, the flags given explicitly, and the checkpoint to resume (if any).

    A resumed run's config is the saved one with the flags given now on top. Nothing is created
    here; a bad value exits through ``parser.error`` (one line naming the flag, status 2).
    """
    parser = build_parser()
    given = vars(parser.parse_args(argv))
    cfg = Config(**given)
    saved: dict[str, Any] = {}
    try:
        if cfg.resume:
            saved = find_checkpoint(Path(cfg.resume))
            merged = dict(saved["meta"]["config"])
            merged.setdefault("features", False)  # a run from before continental_v1 observed v0
            merged.update({k: getattr(cfg, k) for k in given})  # flags given now win
            merged["resume"] = cfg.resume
            cfg = Config(
                **{f.name: merged[f.name] for f in dataclasses.fields(Config) if f.name in merged}
            )
        validate(cfg, set(given))
    except ValueError as exc:
        parser.error(str(exc))
    return cfg, set(given), saved


# ---------------------------------------------------------------------------------------------
# Main: config (fresh or resumed), seeding, environments, model, learn.
# ---------------------------------------------------------------------------------------------
def train(cfg: Config, saved: dict[str, Any]) -> MaskablePPO:
    """Run the checked configuration (``parse_args``): fresh, or resumed from ``saved``."""
    stop = StopRequest()
    stop.install()
    resume_dir = Path(cfg.resume) if cfg.resume else None
    if resume_dir is not None:
        run_dir = resume_dir
        for problem in saved["skipped"]:
            print(f"warning: {problem}; resuming from the {saved['tag']} checkpoint", flush=True)
    else:
        if not cfg.run_name:
            cfg.run_name = f"{cfg.exp_name}__{cfg.players}p__s{cfg.seed}__{int(time.time())}"
        run_dir = Path(cfg.runs_dir) / cfg.run_name
    created = not run_dir.exists()
    run_dir.mkdir(parents=True, exist_ok=True)
    try:
        return _train(cfg, saved, run_dir, stop)
    except BaseException:
        # A start that fails before its first checkpoint leaves no run directory behind.
        if created and not (run_dir / "checkpoints").exists():
            shutil.rmtree(run_dir, ignore_errors=True)
        raise
    finally:
        stop.uninstall()


def _train(cfg: Config, saved: dict[str, Any], run_dir: Path, stop: StopRequest) -> MaskablePPO:
    resume_dir = Path(cfg.resume) if cfg.resume else None
    meta: dict[str, Any] = saved.get("meta", {})

    # Seeding. A resumed run reseeds its environments from the step counter (new deals, not a
    # replay of the first ones) and restores the python/numpy/torch RNG states it saved.
    start_steps = int(meta.get("num_timesteps", 0))
    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    # One thread per process: on a 2-core machine torch's default pool makes PPO updates
    # erratically slow, and the environment workers (started below, inheriting these variables)
    # need the cores for themselves.
    torch.set_num_threads(1)
    os.environ["OMP_NUM_THREADS"] = os.environ["OPENBLAS_NUM_THREADS"] = "1"
    env_seed = cfg.seed * 1_000_003 + start_steps

    venv = make_vec_env(cfg, env_seed)
    if resume_dir is not None:
        model = _resumed_model(cfg, saved, run_dir, venv)
    else:
        model = _new_model(cfg, run_dir, venv)
    if cfg.init_policy:
        _load_init_policy(model, cfg, resumed=resume_dir is not None)
    if cfg.bc_teacher and resume_dir is None:
        behaviour_cloning(model, cfg, run_dir, stop)
        save_checkpoint(
            model, run_dir / "checkpoints", "warm_start", {"config": dataclasses.asdict(cfg)}
        )
    (run_dir / "config.json").write_text(json.dumps(dataclasses.asdict(cfg), indent=2))
    print(f"run {run_dir}: {json.dumps(dataclasses.asdict(cfg))}", flush=True)
    _learn(model, cfg, meta, run_dir, stop)
    venv.close()
    if stop.requested:
        print(
            f"stopped at step {model.num_timesteps}; continue with --resume {run_dir}", flush=True
        )
    else:
        print(finished_message(cfg, run_dir, model.num_timesteps), flush=True)
    return model


def _ppo_kwargs(cfg: Config) -> dict[str, Any]:
    """PPO's hyperparameters from the config (also given to a resumed model)."""
    return {
        "learning_rate": cfg.learning_rate,
        "n_steps": cfg.n_steps,
        "batch_size": cfg.batch_size,
        "n_epochs": cfg.n_epochs,
        "gamma": cfg.gamma,
        "gae_lambda": cfg.gae_lambda,
        "clip_range": cfg.clip_range,
        "ent_coef": cfg.ent_coef,
        "vf_coef": cfg.vf_coef,
        "max_grad_norm": cfg.max_grad_norm,
        "target_kl": cfg.target_kl or None,
    }


def _resumed_model(cfg: Config, saved: dict[str, Any], run_dir: Path, venv: Any) -> MaskablePPO:
    """The checkpoint's model with this run's hyperparameters, its RNG states and snapshots."""
    ckpt_dir = Path(cfg.resume) / "checkpoints"
    tag = saved["tag"]
    # The network the checkpoint was saved with (its config), the rest of the config as now.
    fields = {f.name for f in dataclasses.fields(Config)}
    net = Config(**{k: v for k, v in saved["meta"]["config"].items() if k in fields})
    net.kl_coef = cfg.kl_coef
    model = load_model(ckpt_dir / f"{tag}.zip", net, venv.observation_space, venv.action_space,
                       env=venv, **_ppo_kwargs(cfg))  # fmt: skip
    model.tensorboard_log = str(run_dir)
    restore_rng(ckpt_dir, tag)
    for snap in sorted((run_dir / "snapshots").glob("*.npz"))[-5:]:
        venv.env_method("add_snapshot", str(snap))
    print(f"resuming {run_dir} at step {model.num_timesteps}", flush=True)
    return model


def _new_model(cfg: Config, run_dir: Path, venv: Any) -> MaskablePPO:
    """MaskablePPO's MlpPolicy with a lean rollout step (``agents.train.kl_ppo.LeanPolicy``)."""
    return MaskablePPO(
        policy_class(cfg),
        venv,
        policy_kwargs=policy_kwargs(cfg),
        tensorboard_log=str(run_dir),
        seed=cfg.seed,
        device="cpu",
        verbose=0,
        **_ppo_kwargs(cfg),
    )


def _load_init_policy(model: MaskablePPO, cfg: Config, resumed: bool) -> None:
    """A new run starts from ``--init-policy``'s weights; with ``--kl-coef`` it is the
    reference of the KL penalty (resumed runs too). Read as this run's network, without
    unpickling anything (``load_model``)."""
    try:
        init = load_model(cfg.init_policy, cfg, model.observation_space, model.action_space)
    except (RuntimeError, ValueError) as exc:
        raise ValueError(
            f"--init-policy {cfg.init_policy}: another network ({str(exc).splitlines()[0]})"
        ) from None
    if not resumed:
        model.policy.load_state_dict(init.policy.state_dict())
    if cfg.kl_coef > 0:
        model.policy.set_reference(init.policy)


def _learn(
    model: MaskablePPO, cfg: Config, meta: dict[str, Any], run_dir: Path, stop: StopRequest
) -> None:
    """``learn`` up to ``--total-timesteps`` with the callbacks (a stop during the warm start
    writes the last checkpoint instead)."""
    # The best checkpoint is the best evaluation against one opponent; a new one starts afresh.
    best = meta.get("best_eval_diff")
    if meta and meta["config"]["eval_opponent"] != cfg.eval_opponent:
        best = None
    callback = TrainingCallback(cfg, run_dir, best=best, stop=stop)
    callbacks: Any = callback
    if cfg.kl_coef > 0:
        from stable_baselines3.common.callbacks import CallbackList

        from agents.train.kl_ppo import KLAnneal

        callbacks = CallbackList([callback, KLAnneal(cfg.kl_coef, cfg.kl_anneal_steps)])
    remaining = cfg.total_timesteps - model.num_timesteps
    if stop.requested:  # during the warm start
        callback.init_callback(model)
        callback.checkpoint("last")
    elif remaining > 0:
        model.learn(
            total_timesteps=remaining,
            callback=callbacks,
            tb_log_name="tb",
            reset_num_timesteps=False,
        )
    else:
        print(f"nothing to do: {model.num_timesteps} >= {cfg.total_timesteps} steps", flush=True)


def finished_message(cfg: Config, run_dir: Path, steps: int) -> str:
    """Where a finished run's model is and the command that evaluates it."""
    model = run_dir / "checkpoints" / "last.zip"
    game = "" if cfg.game == DEFAULT_GAME else f" --game {cfg.game}"
    return (
        f"done: {steps} steps; the model is {model}\n"
        f"evaluate it: continental evaluate{game} --agents ppo:{model},strong "
        f"--players {cfg.players} --games 200"
    )


def main(argv: list[str] | None = None) -> int:
    """``continental train`` / ``python train.py``: check every flag, then train."""
    cfg, _given, saved = parse_args(argv)
    train(cfg, saved)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
