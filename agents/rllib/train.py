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
which acts from the engine's seat view (``agents.bots.base.PlayerView``) inside the environment, as in
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
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import shutil
import signal
import socket
import sys
import time
from collections.abc import Sequence
from typing import Any, NoReturn

import numpy as np

from agents.bots.ppo_agent import NumpyPolicy, model_metadata
from agents.bots.rllib_agent import CHECKPOINT_POLICY, RUN_POLICY, TRAINER
from agents.cli import ArgumentParser, parse_names, parse_rounds

ENV_ID = "continental_rllib"
LEARNER = "learner"  # the RLModule every learner seat maps to
SELF = "self"
SNAPSHOTS = "snapshots"
BOTS = ("random", "greedy", "strong")
ROLES = (SELF, SNAPSHOTS, *BOTS)
INSTALL_HINT = (
    "Ray RLlib is not installed: python3 -m venv .venv-rllib && "
    '.venv-rllib/bin/pip install -c constraints-rllib.txt -e ".[rllib,dev]"'
)
ADDRESS_RE = re.compile(r"^(auto|local|ray://[\w.\-]+:\d+|[\w.\-]+:\d+)$")


# ----------------------------------------------------------------------------- the environment


def make_aec_env(config: dict[str, Any]) -> Any:
    """The project's AEC environment with the observation renamed for RLlib's masking module."""
    from continental_env import env as continental_aec

    return RLlibObservation(
        continental_aec(
            num_players=config["players"],
            preset=config["preset"],
            rounds=config["rounds"],
            reward=config.get("reward", "relative"),
        )
    )


def _observation_wrapper_base() -> type:
    from pettingzoo.utils.wrappers import BaseWrapper

    return BaseWrapper


class RLlibObservation(_observation_wrapper_base()):  # type: ignore[misc]
    """``{"observation", "action_mask" int8}`` -> ``{"observations", "action_mask" float32}``.

    RLlib's action-masking RLModule reads the two keys by these names and takes ``log`` of the
    mask, which needs a float tensor. The values are the environment's own.
    """

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        from gymnasium import spaces

        self._spaces: dict[str, Any] = {}
        for agent in env.possible_agents:
            inner = env.observation_space(agent)
            self._spaces[agent] = spaces.Dict(
                {
                    "observations": inner["observation"],
                    "action_mask": spaces.Box(
                        0.0, 1.0, shape=inner["action_mask"].shape, dtype=np.float32
                    ),
                }
            )

    def observation_space(self, agent: str) -> Any:
        return self._spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.env.observe(agent)
        return {
            "observations": obs["observation"],
            "action_mask": obs["action_mask"].astype(np.float32),
        }


def _pettingzoo_env_base() -> type:
    try:
        from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    except ImportError:  # the module stays importable (for --help and the checks) without ray
        return object
    return PettingZooEnv


class ContinentalMultiAgentEnv(_pettingzoo_env_base()):  # type: ignore[misc]
    """RLlib's ``PettingZooEnv`` over the game, with frozen seats played inside the environment.

    ``config``: ``players``, ``preset``, ``rounds``, ``reward``, ``opponents`` (roles, see the
    module docstring), ``seed``. RLlib sees only the learner's seats: it gets their observations,
    their rewards (the environment's per-round relative rewards, summed until the seat acts
    again) and picks their actions; snapshots and bots act here, between those steps.
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        worker = int(getattr(config, "worker_index", 0))
        vector = int(getattr(config, "vector_index", 0))
        config = dict(config or {})
        self.settings = config
        super().__init__(make_aec_env(config))
        self.roles: list[str] = list(config.get("opponents", [SELF]))
        ContinentalMultiAgentEnv._instances += 1
        self._seed = int(config.get("seed", 0)) * 1_000_003 + worker * 10_007 + vector * 101
        self._seed += ContinentalMultiAgentEnv._instances  # several sub-environments per runner
        self.rng = np.random.default_rng(self._seed)
        self._first_reset = True
        self.pool: list[NumpyPolicy] = []
        self._bots: dict[str, Any] = {}
        self.seat_roles: list[str] = []
        self.seat_policy: dict[int, Any] = {}
        self.learner_seats: set[str] = set()

    _instances = 0

    # ------------------------------------------------------------------ the pool

    def set_pool(self, snapshots: list[tuple[list[tuple[np.ndarray, np.ndarray]], str]]) -> int:
        """Replace the frozen snapshots: ``[(weights, activation), ...]``; returns the pool size."""
        self.pool = [
            NumpyPolicy(
                w, activation=a, name=f"snapshot{i}", deterministic=False, seed=self._seed + i
            )
            for i, (w, a) in enumerate(snapshots)
        ]
        return len(self.pool)

    def _bot(self, name: str) -> Any:
        if name not in self._bots:
            from agents.train.single_agent import opponent

            self._bots[name] = opponent(name, int(self.rng.integers(2**31)))
        return self._bots[name]

    # ------------------------------------------------------------------ episodes

    def _assign_seats(self) -> None:
        players = self.env.unwrapped.num_players
        learner = int(self.rng.integers(players))
        self.seat_roles = [SELF] * players
        self.seat_policy = {}
        for seat in range(players):
            if seat == learner:
                continue
            role = self.roles[int(self.rng.integers(len(self.roles)))]
            if role == SNAPSHOTS and not self.pool:
                role = SELF  # no frozen learner yet: the learner plays the seat
            self.seat_roles[seat] = role
            if role == SNAPSHOTS:
                self.seat_policy[seat] = self.pool[int(self.rng.integers(len(self.pool)))]
            elif role != SELF:
                self.seat_policy[seat] = self._bot(role)
        agents = self.env.possible_agents
        self.learner_seats = {agents[s] for s in range(players) if self.seat_roles[s] == SELF}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        if seed is None and self._first_reset:
            seed = self._seed
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self._first_reset = False
        self.env.reset(seed=seed, options=options)
        self._assign_seats()
        obs, _, _, _, infos = self._advance()
        return obs, infos

    def step(self, action_dict: dict[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        self.env.step(int(action_dict[self.env.agent_selection]))
        return self._advance()

    def _advance(self) -> tuple[dict, dict, dict, dict, dict]:
        """Play frozen seats until a learner seat must act or the game ends; RLlib's dicts."""
        obs: dict[str, Any] = {}
        rew: dict[str, float] = {}
        term: dict[str, bool] = {}
        trunc: dict[str, bool] = {}
        infos: dict[str, dict] = {}
        env = self.env
        truncated_any = False
        while env.agents:
            agent = env.agent_selection
            o, r, te, tr, info = env.last()
            mine = agent in self.learner_seats
            if te or tr:
                truncated_any |= bool(tr)
                if mine:
                    obs[agent], rew[agent], term[agent], trunc[agent] = (
                        o,
                        float(r),
                        bool(te),
                        bool(tr),
                    )
                    infos[agent] = dict(info)
                env.step(None)
                continue
            if mine:
                obs[agent], rew[agent], term[agent], trunc[agent] = o, float(r), False, False
                infos[agent] = dict(info)
                break
            seat = env.unwrapped.agent_name_mapping[agent]
            env.step(self._frozen_action(seat, o))
        done = not env.agents
        if done:
            result = self.game_result()
            for agent in infos:
                infos[agent]["game"] = result
        term["__all__"] = done and not truncated_any
        trunc["__all__"] = done and truncated_any
        return obs, rew, term, trunc, infos

    def _frozen_action(self, seat: int, obs: dict[str, np.ndarray]) -> int:
        policy = self.seat_policy[seat]
        if isinstance(policy, NumpyPolicy):
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            return policy.act_from_observation(obs["observations"], legal)
        return int(policy(self.env.unwrapped.game, seat))

    def game_result(self) -> dict[str, Any]:
        """Points of the finished game by role: the learner's seats against each opponent kind."""
        game = self.env.unwrapped.game
        rounds = max(1, len(game.round_history))
        scores = list(game.scores)
        by_role: dict[str, list[int]] = {}
        for seat, role in enumerate(self.seat_roles):
            by_role.setdefault(role, []).append(scores[seat])
        mean = {role: float(np.mean(v)) for role, v in by_role.items()}
        margins = {
            role: (mean[role] - mean[SELF]) / rounds for role in mean if role != SELF
        }  # positive: that kind of seat lost more points per round than the learner
        return {"rounds": rounds, "learner_points": mean[SELF], "margin_per_round": margins}


# ----------------------------------------------------------------------------- exporting


def actor_weights(module: Any) -> tuple[list[tuple[np.ndarray, np.ndarray]], str]:
    """The linear layers of a PPO RLModule's actor (encoder, then action head), and the activation.

    ``NumpyPolicy(weights, activation)`` then computes the module's action logits (before
    masking); ``check_export`` verifies it against the torch forward pass.
    """
    import torch

    encoder = module.encoder
    actor = getattr(encoder, "actor_encoder", None) or encoder.encoder
    layers = [
        m for part in (actor, module.pi) for m in part.modules() if isinstance(m, torch.nn.Linear)
    ]
    kinds = {
        type(m).__name__.lower()
        for part in (actor, module.pi)
        for m in part.modules()
        if isinstance(m, (torch.nn.ReLU, torch.nn.Tanh))
    }
    if len(kinds) > 1:
        raise ValueError(f"the actor mixes activations {sorted(kinds)}; NumpyPolicy takes one")
    weights = [(m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy()) for m in layers]
    return weights, kinds.pop() if kinds else "tanh"


def module_logits(module: Any, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The masked action logits of the RLModule's inference pass for a batch of observations."""
    import torch
    from ray.rllib.core.columns import Columns

    batch = {
        Columns.OBS: {
            "observations": torch.as_tensor(obs, dtype=torch.float32),
            "action_mask": torch.as_tensor(mask, dtype=torch.float32),
        }
    }
    with torch.no_grad():
        out = module.forward_inference(batch)
    return out[Columns.ACTION_DIST_INPUTS].cpu().numpy()


def export_policy(module: Any, path: str, meta: dict[str, Any]) -> NumpyPolicy:
    """Write the module's actor to ``path`` (.npz, atomically) for ``rllib:PATH``."""
    weights, activation = actor_weights(module)
    policy = NumpyPolicy(weights, activation=activation, name=TRAINER, meta=meta)
    policy.save_npz(path)
    return policy


# ----------------------------------------------------------------------------- self-play callback


def _callback_base() -> type:
    try:
        from ray.rllib.callbacks.callbacks import RLlibCallback
    except ImportError:
        return object
    return RLlibCallback


class SelfPlayCallback(_callback_base()):  # type: ignore[misc]
    """Logs the learner's margins per game; freezes it into the opponent pool as it improves.

    The run directory, the margin and the pool size come from ``env_config["selfplay"]``.
    """

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        infos = episode.get_infos(-1)
        result = next(
            (i["game"] for i in infos.values() if isinstance(i, dict) and "game" in i), None
        )
        if result is None or metrics_logger is None:
            return
        metrics_logger.log_value("learner_points_per_game", result["learner_points"], window=100)
        for role, margin in result["margin_per_round"].items():
            metrics_logger.log_value(f"margin_vs_{role}", margin, window=100)

    def on_train_result(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        settings = algorithm.config.env_config["selfplay"]
        pool = SnapshotPool(settings["run_dir"], settings["max_snapshots"])
        runners = result.get("env_runners", {})
        margin = runners.get(f"margin_vs_{SNAPSHOTS}")
        wants_snapshots = SNAPSHOTS in algorithm.config.env_config["opponents"]
        frozen = False
        if wants_snapshots and (
            not pool.files() or (margin is not None and margin >= settings["snapshot_margin"])
        ):
            weights, activation = actor_weights(algorithm.get_module(LEARNER))
            pool.add(weights, activation, algorithm.iteration)
            push_pool(algorithm, pool.load())
            frozen = True
        result["selfplay"] = {"pool_size": len(pool.files()), "frozen": frozen, "margin": margin}


class SnapshotPool:
    """Frozen learners on disk (``RUN/snapshots/NNNNNN.npz``), the newest ``size`` kept."""

    def __init__(self, run_dir: str, size: int) -> None:
        self.dir = os.path.join(run_dir, "snapshots")
        self.size = size

    def files(self) -> list[str]:
        if not os.path.isdir(self.dir):
            return []
        names = sorted(n for n in os.listdir(self.dir) if re.fullmatch(r"\d{6}\.npz", n))
        return [os.path.join(self.dir, n) for n in names]

    def add(
        self, weights: list[tuple[np.ndarray, np.ndarray]], activation: str, iteration: int
    ) -> None:
        os.makedirs(self.dir, exist_ok=True)
        NumpyPolicy(weights, activation=activation).save_npz(
            os.path.join(self.dir, f"{iteration:06d}.npz")
        )
        for old in self.files()[: -self.size]:
            os.remove(old)

    def load(self) -> list[tuple[list[tuple[np.ndarray, np.ndarray]], str]]:
        out = []
        for f in self.files():
            p = NumpyPolicy.load_npz(f)
            out.append(([(w.T, b) for w, b in p.weights], p.activation))
        return out


def push_pool(algorithm: Any, snapshots: list) -> None:
    """Send the snapshot pool to every sub-environment of every env runner (local included)."""

    def update(runner: Any) -> int:
        if getattr(runner, "env", None) is None:  # the driver's runner when remote ones sample
            return 0
        return sum(e.unwrapped.set_pool(snapshots) for e in runner.env.envs)

    algorithm.env_runner_group.foreach_env_runner(update, local_env_runner=True)


# ----------------------------------------------------------------------------- configuration


def build_parser() -> ArgumentParser:
    p = ArgumentParser(prog="continental train-rllib", description=__doc__.split("\n")[0])
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
