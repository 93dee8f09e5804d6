"""The configuration of ``continental train-rllib``: its flags, their checks (every flag before
any work, without ray) and the ``PPOConfig`` built from the checked run configuration."""

from __future__ import annotations

import argparse
import math
import os
import re
from typing import Any

from agents.cli import ArgumentParser, parse_names, parse_rounds
from agents.rllib.env import ENV_ID, LEARNER, ROLES, ContinentalMultiAgentEnv
from agents.rllib.policy import SelfPlayCallback

DESCRIPTION = (
    "Multi-agent self-play with action masking on Ray RLlib (``continental train-rllib``)."
)
ADDRESS_RE = re.compile(r"^(auto|local|ray://[\w.\-]+:\d+|[\w.\-]+:\d+)$")


# ----------------------------------------------------------------------------- configuration


def build_parser() -> ArgumentParser:
    p = ArgumentParser(prog="continental train-rllib", description=DESCRIPTION)
    a = p.add_argument
    a("--players", type=int, default=4, help="seats at the table (default: 4)")
    a("--preset", default="continental", help="rules preset (default: continental)")
    a("--rounds", default="all", help="'all', one round ('1') or a list ('1,2,3') (default: all)")
    a(
        "--opponents",
        default="self,snapshots",
        help="roles of the other seats, drawn per game and seat: self, snapshots, random, greedy, strong (default: self,snapshots)",
    )
    a(
        "--num-env-runners",
        type=int,
        default=1,
        help="env runner processes (0: sample in the driver) (default: 1)",
    )
    a("--num-envs-per-runner", type=int, default=1, help="environments per env runner (default: 1)")
    a(
        "--address",
        default=None,
        help="join a running Ray cluster: 'auto' or HOST:PORT (default: start a local Ray)",
    )
    a(
        "--iterations",
        type=int,
        default=0,
        help="stop after this many training iterations, in all (0: no limit)",
    )
    a(
        "--total-steps",
        type=int,
        default=0,
        help="stop after this many sampled env steps, in all (0: no limit)",
    )
    a(
        "--max-minutes",
        type=float,
        default=0.0,
        help="stop after this many minutes of this invocation (0: no limit)",
    )
    a(
        "--train-batch-size",
        type=int,
        default=4000,
        help="env steps per training iteration (default: 4000)",
    )
    a("--minibatch-size", type=int, default=512, help="SGD minibatch (default: 512)")
    a("--num-epochs", type=int, default=4, help="passes over each batch (default: 4)")
    a("--lr", type=float, default=3e-4, help="Adam learning rate (default: 3e-4)")
    a("--gamma", type=float, default=0.995, help="discount factor (default: 0.995)")
    a("--entropy-coeff", type=float, default=0.01, help="entropy bonus (default: 0.01)")
    a(
        "--hidden",
        default="256,256",
        help="hidden layer sizes of the policy and value MLPs (default: 256,256)",
    )
    a(
        "--activation",
        default="relu",
        choices=("relu", "tanh"),
        help="hidden activation (default: relu)",
    )
    a(
        "--snapshot-margin",
        type=float,
        default=2.0,
        help="freeze the learner when snapshot seats lose this many more points per round than it (default: 2)",
    )
    a("--max-snapshots", type=int, default=8, help="frozen learners kept in the pool (default: 8)")
    a("--checkpoint-every", type=int, default=5, help="iterations between checkpoints (default: 5)")
    a("--seed", type=int, default=1, help="seeds the learner and every environment (default: 1)")
    a("--runs-dir", default="runs", help="where run directories go (default: runs)")
    a("--run-name", default="", help="run directory name (default: rllib_<time>)")
    a("--resume", default="", help="a run directory to continue from its latest checkpoint")
    a(
        "--cpus",
        type=int,
        default=0,
        help="CPUs a local Ray may schedule (0: enough for the runners)",
    )
    return p


def check_args(args: argparse.Namespace, parser: ArgumentParser) -> dict[str, Any]:
    """Every flag checked before any work; the run configuration."""
    from continental_env.rules import PRESETS, resolve_rules

    def need(ok: bool, flag: str, why: str) -> None:
        if not ok:
            parser.error(f"{flag} {getattr(args, flag[2:].replace('-', '_'))!r}: {why}")

    need(args.num_env_runners >= 0, "--num-env-runners", "must be 0 or more")
    need(args.num_envs_per_runner >= 1, "--num-envs-per-runner", "must be at least 1")
    need(
        args.address is None or bool(ADDRESS_RE.match(args.address)),
        "--address",
        "give 'auto', HOST:PORT or ray://HOST:PORT",
    )
    need(args.preset in PRESETS, "--preset", f"choose one of {', '.join(PRESETS)}")
    try:
        rounds = parse_rounds(args.rounds)
        rules = resolve_rules(args.preset)
        if rounds:
            rules = rules.with_rounds(tuple(rounds))
        rules.check_players(args.players)
    except ValueError as exc:
        parser.error(str(exc))
    roles = parse_names(args.opponents, "--opponents")
    bad = [r for r in roles if r not in ROLES]
    need(not bad, "--opponents", f"unknown role(s) {bad}; choose from {', '.join(ROLES)}")
    for flag in ("--iterations", "--total-steps", "--max-minutes", "--cpus"):
        need(getattr(args, flag[2:].replace("-", "_")) >= 0, flag, "must be 0 or more")
    need(args.train_batch_size >= 32, "--train-batch-size", "must be at least 32")
    need(
        1 <= args.minibatch_size <= args.train_batch_size,
        "--minibatch-size",
        "must be between 1 and --train-batch-size",
    )
    need(args.num_epochs >= 1, "--num-epochs", "must be at least 1")
    need(args.lr > 0 and math.isfinite(args.lr), "--lr", "must be positive")
    need(0 < args.gamma <= 1, "--gamma", "must be in (0, 1]")
    need(args.entropy_coeff >= 0, "--entropy-coeff", "must be 0 or more")
    need(args.max_snapshots >= 1, "--max-snapshots", "must be at least 1")
    need(args.checkpoint_every >= 1, "--checkpoint-every", "must be at least 1")
    need(math.isfinite(args.snapshot_margin), "--snapshot-margin", "must be a number")
    try:
        hidden = [int(h) for h in args.hidden.split(",")]
    except ValueError:
        hidden = []
    need(bool(hidden) and all(h >= 1 for h in hidden), "--hidden", "give sizes such as 256,256")
    return {
        "players": args.players,
        "preset": args.preset,
        "rounds": rounds,
        "reward": "relative",
        "opponents": roles,
        "num_env_runners": args.num_env_runners,
        "num_envs_per_runner": args.num_envs_per_runner,
        "train_batch_size": args.train_batch_size,
        "minibatch_size": args.minibatch_size,
        "num_epochs": args.num_epochs,
        "lr": args.lr,
        "gamma": args.gamma,
        "entropy_coeff": args.entropy_coeff,
        "hidden": hidden,
        "activation": args.activation,
        "snapshot_margin": args.snapshot_margin,
        "max_snapshots": args.max_snapshots,
        "checkpoint_every": args.checkpoint_every,
        "seed": args.seed,
    }


def build_config(cfg: dict[str, Any], run_dir: str) -> Any:
    """The ``PPOConfig``: one shared ``learner`` RLModule with action masking, our environment."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )
    from ray.tune.registry import register_env

    register_env(ENV_ID, ContinentalMultiAgentEnv)
    env_config = {
        "players": cfg["players"],
        "preset": cfg["preset"],
        "rounds": cfg["rounds"],
        "reward": cfg["reward"],
        "opponents": cfg["opponents"],
        "seed": cfg["seed"],
        "selfplay": {
            "run_dir": os.path.abspath(run_dir),
            "snapshot_margin": cfg["snapshot_margin"],
            "max_snapshots": cfg["max_snapshots"],
        },
    }
    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={
            "fcnet_hiddens": cfg["hidden"],
            "fcnet_activation": cfg["activation"],
            "head_fcnet_hiddens": [],
            "vf_share_layers": False,
        },
    )
    runners = cfg["num_env_runners"]
    envs = cfg["num_envs_per_runner"]
    return (
        PPOConfig()
        .environment(ENV_ID, env_config=env_config, disable_env_checking=True)
        .framework("torch")
        .env_runners(
            num_env_runners=runners,
            num_envs_per_env_runner=envs,
            num_cpus_per_env_runner=1,
            rollout_fragment_length="auto",
        )
        .multi_agent(
            policies={LEARNER},
            policy_mapping_fn=_to_learner,
            policies_to_train=[LEARNER],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={LEARNER: module}))
        .training(
            train_batch_size_per_learner=cfg["train_batch_size"],
            minibatch_size=cfg["minibatch_size"],
            num_epochs=cfg["num_epochs"],
            lr=cfg["lr"],
            gamma=cfg["gamma"],
            lambda_=0.95,
            clip_param=0.2,
            entropy_coeff=cfg["entropy_coeff"],
            vf_loss_coeff=0.5,
            grad_clip=0.5,
        )
        .learners(num_learners=0)
        .callbacks(SelfPlayCallback)
        .debugging(seed=cfg["seed"], log_level="ERROR")
        .reporting(metrics_num_episodes_for_smoothing=100)
    )


def _to_learner(agent_id: str, episode: Any, **kwargs: Any) -> str:
    """Every seat RLlib sees is a learner seat (frozen seats act inside the environment)."""
    return LEARNER
