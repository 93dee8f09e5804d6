"""Self-play masked PPO on ``continental_env.batch.BatchGame``, in one file (CleanRL's ``ppo.py``).

Every seat of every lane is played by the current policy. A rollout of ``T`` steps over ``N``
lanes gives ``N * T`` decisions, each belonging to a (lane, seat). A seat's rewards arrive on
other seats' actions (a round ends on whoever closes it), so each (lane, seat) is its own chain
of decisions: a decision's reward is what its seat earns from that decision until the seat's next
decision in the same game (or the game's end), and GAE runs along each chain with one discount
per decision of the seat (``seat_advantages``). The last decision of a chain in a rollout whose
outcome is not known yet (its seat acts again only after the rollout) is not trained on; its
value bootstraps the decision before it. The softmax runs over each position's legal actions
only (``Legal``: about 7 of 1,631, so only their rows of the output layer are multiplied); it
equals the softmax of the full logits with the illegal ones masked out, which the tests check.

    python -m agents.train.selfplay --out runs/sp --num-games 64 --steps-per-rollout 128 \\
        --total-steps 2000000 --seed 1 --observation v0 --players 4 --preset continental
    python -m agents.train.selfplay --out runs/sp --resume --total-steps 4000000   # continue
    python -m agents.evaluate --agents ppo:runs/sp/policy.npz,strong --games 200

A run directory holds ``config.json``, ``progress.csv`` (one row per update: decisions, CPU and
wall seconds, losses, round statistics), ``checkpoints/last.*`` (``.pt``: the network, Adam's
state and the sampling generator as tensors, read back with ``torch.load(weights_only=True)``;
``.rng.json``: the global generators; ``.lanes.json``: every lane's game and game count;
``.json``, written last: the counters and the configuration; the checkpoint before is kept as
``prev.*``) and ``policy.npz``, the actor in the project's numpy format
(``agents.bots.ppo_agent.NumpyPolicy``), which plays as ``ppo:DIR/policy.npz`` and observes its
seat as the AEC env does (``continental_v0`` / ``continental_v1``). ``--resume`` continues from
the newest readable checkpoint exactly: the same updates an uninterrupted run makes. SIGTERM or
Ctrl-C finishes the update, writes a checkpoint and exits with status 0.
"""

from __future__ import annotations

import csv
import dataclasses
import itertools
import json
import math
import os
import pickle
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.bots.ppo_agent import NumpyPolicy, model_metadata
from agents.cli import ArgumentParser, parse_rounds
from agents.train.callback import PROGRESS_EVERY_S, StopRequest, progress_line
from agents.train.checkpoints import RESUME_ORDER, read_rng, restore_rng, rng_state
from agents.train.cloning import copy_policy_layers
from agents.train.config import check_writable_dir, opt, parse_ints
from continental_env.batch import BACKENDS, BOT_NAMES, BatchGame
from continental_env.cards import NUM_TYPES
from continental_env.contract.aec import encode_observation
from continental_env.contract.game import Game
from continental_env.rewards import POINTS_SCALE
from continental_env.rules import PRESETS

DESCRIPTION = "Self-play masked PPO on BatchGame: every seat played by the current policy."
MASKED_LOGIT = -1e9  # an illegal action's logit: exp() is 0 in float32, and 0 * logit stays finite
VALUE_CHUNK = 4096  # rows of the rollout's observations per critic product
CHECKPOINT_FILES = (".pt", ".rng.json", ".lanes.json", ".json")  # moved in this order: .json last


# ---------------------------------------------------------------------------------------------
# Configuration: every flag with its help text (``python -m agents.train.selfplay --help``).
# ---------------------------------------------------------------------------------------------
@dataclass
class SelfPlayConfig:
    out: str = opt("", "run directory (config, progress.csv, checkpoints, policy.npz)")
    num_games: int = opt(64, "lanes: games stepped together, one policy forward for all")
    steps_per_rollout: int = opt(128, "steps of every lane per rollout (N x T decisions)")
    total_steps: int = opt(2_000_000, "decisions to train for, in all (not per run)")
    seed: int = opt(1, "seeds the deals, the network and the sampling")
    observation: str = opt("v0", "v0 or v1: the observation the AEC env gives (continental_v0/v1)")
    players: int = opt(4, "seats at every table")
    preset: str = opt("continental", "rules preset")
    rounds: str = opt("all", "rounds to play: 'all', one round ('1') or a list ('1,2,3')")
    reward: str = opt("relative", "reward mode: relative, points or win (as the AEC env)")
    opponents: str = opt(
        "",
        "compiled bots at every seat but each lane's learner seat (lane i: seat i %% players), "
        "named in turn from this list (greedy, strong@v1, strong@v2); empty: self-play",
    )
    pool: str = opt(
        "",
        "tables by lane, instead of --opponents: 'self:2,strong@v1:1,greedy:1' gives each block "
        "of --players lanes the next entry in turn, each entry as many blocks as its weight; "
        "'self': the policy at every seat; a bot: the policy at one seat (lane i: seat i %% "
        "players) and that bot at the others",
    )
    win_bonus: float = opt(
        0.0, "added to the reward at every game's end: this times the win reward (the winners "
        "share +1, the others -1)"
    )  # fmt: skip
    close_bonus: float = opt(
        0.0, "added to the reward at every round's end, in points: the seat that closed gets "
        "this many, each other seat this over (players - 1) less (0 when no one closed)"
    )  # fmt: skip
    init: str = opt(
        "", "a run directory: start from the network of its newest checkpoint (a new run, with "
        "its own optimizer, lanes and counters; the network's shape must match); or a policy "
        "file (.npz, as a run's policy.npz or a shipped ppo model): its actor, with a fresh "
        "critic (see --critic-warmup)"
    )  # fmt: skip
    critic_warmup: int = opt(
        0, "the first updates of this run in which only the critic learns: the policy, and the "
        "layers the critic shares with it, are held (a fresh critic's first values would "
        "otherwise steer the policy)"
    )  # fmt: skip
    backend: str = opt("auto", "BatchGame backend: auto, compiled or reference")
    device: str = opt("cpu", "torch device: cpu or cuda")
    threads: int = opt(1, "torch.set_num_threads (1 suits a shared 2-core machine)")
    hidden: str = opt("256,256", "hidden layer sizes of the actor and of the critic")
    shared_trunk: bool = opt(False, "the critic shares the actor's hidden layers (one pass)")
    privileged_critic: bool = opt(
        False,
        "the critic also sees every other seat's hand (BatchGame.hidden_hands), as PerfectDou's "
        "and Suphx's do: training only, the policy never sees them",
    )
    activation: str = opt("relu", "hidden activation: relu or tanh")
    learning_rate: float = opt(2.5e-4, "Adam learning rate")
    gamma: float = opt(0.995, "discount per decision of a seat")
    gae_lambda: float = opt(0.95, "GAE lambda")
    num_minibatches: int = opt(4, "minibatches per epoch")
    update_epochs: int = opt(4, "passes over each rollout")
    clip_coef: float = opt(0.2, "PPO clip range")
    ent_coef: float = opt(0.01, "entropy bonus coefficient")
    vf_coef: float = opt(0.5, "value loss coefficient")
    max_grad_norm: float = opt(0.5, "gradient clipping norm")
    checkpoint_every: int = opt(10, "updates between checkpoints (and one at the end)")
    policy_every: int = opt(0, "updates between kept copies of the policy in policies/ (0: none)")
    resume: bool = opt(False, "continue the run in --out from its newest readable checkpoint")


# The flags a resumed run may change; the others fix the network, the lanes or the updates.
RESUME_MAY_CHANGE = frozenset(
    {"out", "total_steps", "device", "threads", "checkpoint_every", "policy_every", "resume"}
)


def build_parser() -> ArgumentParser:
    """One flag per ``SelfPlayConfig`` field; absent flags stay absent (a resume keeps them)."""
    import argparse

    parser = ArgumentParser(prog="python -m agents.train.selfplay", description=DESCRIPTION)
    for f in dataclasses.fields(SelfPlayConfig):
        flag = "--" + f.name.replace("_", "-")
        default = "required" if f.name == "out" else f"default: {f.default}"
        helptext = f"{f.metadata['help']} ({default})"
        if f.type in ("bool", bool):
            parser.add_argument(flag, action="store_true", default=argparse.SUPPRESS, help=helptext)
        else:
            kind = {"int": int, "float": float, "str": str}[str(f.type)]
            parser.add_argument(flag, type=kind, default=argparse.SUPPRESS, help=helptext)
    return parser


def validate(cfg: SelfPlayConfig) -> None:
    """ValueError naming the first bad flag and its value."""

    def need(ok: bool, name: str, why: str) -> None:
        if not ok:
            raise ValueError(f"--{name.replace('_', '-')} {getattr(cfg, name)!r}: {why}")

    need(cfg.out != "", "out", "give the run directory")
    for name in ("num_games", "steps_per_rollout", "total_steps", "threads", "num_minibatches",
                 "update_epochs", "checkpoint_every"):  # fmt: skip
        need(getattr(cfg, name) >= 1, name, "must be at least 1")
    need(cfg.policy_every >= 0, "policy_every", "must be at least 0")
    need(cfg.critic_warmup >= 0, "critic_warmup", "must be at least 0")
    need(0 <= cfg.seed < 2**63, "seed", "must be in 0 .. 2**63 - 1")
    need(cfg.observation in ("v0", "v1"), "observation", "choose v0 or v1")
    need(cfg.preset in PRESETS, "preset", f"choose one of {', '.join(PRESETS)}")
    need(cfg.reward in ("relative", "points", "win"), "reward", "choose relative, points or win")
    need(cfg.backend in BACKENDS, "backend", f"choose one of {', '.join(BACKENDS)}")
    need(cfg.device in ("cpu", "cuda"), "device", "choose cpu or cuda")
    need(cfg.device != "cuda" or torch.cuda.is_available(), "device", "no CUDA device here")
    try:
        hidden = parse_ints(cfg.hidden)
    except ValueError:
        hidden = []
    need(bool(hidden) and min(hidden) >= 1, "hidden", "positive layer sizes such as '256,256'")
    need(cfg.activation in ("relu", "tanh"), "activation", "choose relu or tanh")
    for name in ("learning_rate", "gamma", "gae_lambda", "clip_coef", "ent_coef", "vf_coef",
                 "max_grad_norm"):  # fmt: skip
        need(math.isfinite(getattr(cfg, name)), name, "must be a finite number")
    need(cfg.learning_rate > 0, "learning_rate", "must be positive")
    need(0 < cfg.gamma <= 1, "gamma", "must be in (0, 1]")
    need(0 <= cfg.gae_lambda <= 1, "gae_lambda", "must be in [0, 1]")
    need(cfg.clip_coef > 0, "clip_coef", "must be positive")
    need(cfg.ent_coef >= 0, "ent_coef", "must be at least 0")
    need(cfg.vf_coef >= 0, "vf_coef", "must be at least 0")
    need(cfg.max_grad_norm > 0, "max_grad_norm", "must be positive")
    parse_rounds(cfg.rounds)  # its message names the flag
    try:  # the table, the rounds and the backend, as BatchGame checks them
        batch = make_batch(cfg)
    except (ValueError, RuntimeError) as exc:
        flags = f"--players {cfg.players} --rounds {cfg.rounds!r} --backend {cfg.backend!r}"
        raise ValueError(f"{flags}: {exc}") from None
    _validate_tables(cfg, need, batch.backend, batch.obs_dim, batch.num_actions)
    check_writable_dir(cfg.out, "--out")


def _validate_tables(
    cfg: SelfPlayConfig, need: Any, backend: str, obs_dim: int, num_actions: int
) -> None:
    """The checks of --opponents, --pool, --win-bonus and --close-bonus (``need`` as ``validate``'s)."""
    unknown = [b for b in cfg.opponents.split(",") if b not in BOT_NAMES] if cfg.opponents else []
    need(not unknown, "opponents", f"choose among {', '.join(BOT_NAMES)}")
    compiled = "the bots decide on the compiled core, and this batch runs the reference"
    need(not cfg.opponents or backend == "compiled", "opponents", compiled)
    if cfg.pool:
        need(not cfg.opponents, "pool", "give --pool or --opponents, not both")
        try:
            names = [name for name, _ in parse_pool(cfg.pool)]
        except ValueError as exc:
            need(False, "pool", str(exc))
        need(not set(names) & set(BOT_NAMES) or backend == "compiled", "pool", compiled)
        for name in names:
            if name.startswith("ppo:"):
                try:
                    pool_network(name, cfg, obs_dim, num_actions)
                except ValueError as exc:
                    need(False, "pool", str(exc))
    need(not (cfg.privileged_critic and cfg.shared_trunk), "privileged_critic",
         "the privileged critic is a network of its own: drop --shared-trunk")  # fmt: skip
    need(math.isfinite(cfg.win_bonus) and cfg.win_bonus >= 0, "win_bonus",
         "must be a finite number, at least 0")  # fmt: skip
    need(math.isfinite(cfg.close_bonus) and cfg.close_bonus >= 0, "close_bonus",
         "must be a finite number of points, at least 0")  # fmt: skip


def parse_pool(text: str) -> list[tuple[str, int]]:
    """``'self:2,strong@v1:1,ppo:PATH'`` as ``[("self", 2), ("strong@v1", 1), ("ppo:PATH", 1)]``:
    the weight follows the last colon; an entry without one weighs 1. ValueError (one line)
    naming the bad entry."""
    pool = []
    for entry in text.split(","):
        name, _, weight = entry.rpartition(":")
        if not name or not weight.isdigit():  # no weight given
            name, weight = entry, "1"
        if name != "self" and name not in BOT_NAMES and not name.startswith("ppo:"):
            raise ValueError(
                f"entry {entry!r}: choose self, ppo:PATH or one of {', '.join(BOT_NAMES)}"
            )
        if int(weight) < 1:
            raise ValueError(f"entry {entry!r}: the weight is a whole number of at least 1")
        pool.append((name, int(weight)))
    return pool


def pool_network(name: str, cfg: SelfPlayConfig, obs_dim: int, num_actions: int) -> NumpyPolicy:
    """A ``ppo:PATH`` pool entry as the frozen network it names (``load_agent``: deterministic,
    as ``ppo:PATH`` plays in the harness); ValueError if it cannot play this run's table."""
    from agents.bots.ppo_agent import load_agent

    model = load_agent(name.removeprefix("ppo:"))
    if model.obs_size != obs_dim or model.num_actions != num_actions:
        raise ValueError(
            f"{name}: the network takes {model.obs_size} inputs and {model.num_actions} actions, "
            f"this run's table ({cfg.players} players, observation {cfg.observation}) gives "
            f"{obs_dim} and {num_actions}"
        )
    return model


def parse_args(argv: list[str] | None = None) -> tuple[SelfPlayConfig, dict[str, Any] | None]:
    """The checked config and the checkpoint to resume (None for a fresh run). A resumed run's
    config is the saved one with the flags in ``RESUME_MAY_CHANGE`` given now on top."""
    parser = build_parser()
    given = vars(parser.parse_args(argv))
    cfg = SelfPlayConfig(**given)
    saved = None
    try:
        if cfg.resume:
            saved = find_checkpoint(Path(cfg.out))
            # a flag newer than the run: the run was trained with its default
            defaults = {f.name: f.default for f in dataclasses.fields(SelfPlayConfig)}
            merged = {**defaults, **saved["meta"]["config"]}
            for name, value in given.items():
                if name not in RESUME_MAY_CHANGE and value != merged.get(name):
                    raise ValueError(
                        f"--{name.replace('_', '-')} {value!r}: the run in {cfg.out} was trained "
                        f"with {merged.get(name)!r}, and --resume continues it as it was"
                    )
                merged[name] = value
            cfg = SelfPlayConfig(**merged)
        elif (Path(cfg.out) / "checkpoints" / "last.json").exists():
            raise ValueError(f"--out {cfg.out!r}: holds a run already; continue it with --resume")
        validate(cfg)
        if cfg.init and saved is None:
            check_init(cfg)
    except ValueError as exc:
        parser.error(str(exc))
    return cfg, saved


# The flags that fix the actor's shape: an --init run must share them (its critic is loaded too
# where it has the same shape: see ``init_network``).
NETWORK_FLAGS = ("observation", "players", "preset", "hidden", "activation")


def check_init(cfg: SelfPlayConfig) -> dict[str, Any]:
    """The --init run's newest checkpoint meta (or the --init policy file's meta); ValueError
    (one line) if it has none or its network differs from this run's."""
    if cfg.init.endswith(".npz"):
        return _check_init_policy(cfg)
    try:
        meta = find_checkpoint(Path(cfg.init))["meta"]
    except ValueError as exc:
        raise ValueError(f"--init {cfg.init!r}: {str(exc).split(': ', 1)[-1]}") from None
    theirs = meta["config"]
    for name in NETWORK_FLAGS:
        if theirs.get(name, getattr(SelfPlayConfig, name)) != getattr(cfg, name):
            raise ValueError(
                f"--init {cfg.init!r}: its network was trained with --{name.replace('_', '-')} "
                f"{theirs.get(name)!r}, this run has {getattr(cfg, name)!r}"
            )
    return meta


def _check_init_policy(cfg: SelfPlayConfig) -> dict[str, Any]:
    """An --init policy file's meta, checked against this run's table and network."""
    return _init_policy(cfg).meta or {}


def _init_policy(cfg: SelfPlayConfig) -> NumpyPolicy:
    """The --init policy file, checked against this run's table and network."""
    policy = NumpyPolicy.read(cfg.init, f"--init {cfg.init!r}")
    meta = policy.meta or {}
    mine = policy_meta(cfg, 0)
    for key in ("env", "num_players", "preset", "rounds"):
        if meta.get(key) != mine[key]:
            raise ValueError(
                f"--init {cfg.init!r}: the policy was trained for {key} {meta.get(key)!r}, "
                f"this run has {mine[key]!r}"
            )
    shape = [int(w.shape[1]) for w, _ in policy.weights[:-1]]
    if shape != parse_ints(cfg.hidden) or policy.activation != cfg.activation:
        raise ValueError(
            f"--init {cfg.init!r}: its hidden layers are {','.join(map(str, shape))} "
            f"({policy.activation}), this run has --hidden {cfg.hidden} ({cfg.activation})"
        )
    return policy


def init_network(agent: Agent, cfg: SelfPlayConfig) -> dict[str, Any]:
    """Load the --init run's newest network into ``agent`` (or, from a policy file, its actor:
    the critic stays as initialised); what it started from (the run or file, and its update,
    decisions and CPU seconds) for the checkpoints and policies."""
    if cfg.init.endswith(".npz"):
        return _init_from_policy(agent, cfg)
    found = find_checkpoint(Path(cfg.init))
    theirs = found["state"]["model"]
    mine = agent.state_dict()
    actor = {k: v for k, v in theirs.items() if k.startswith("actor.")}
    critic = init_critic(mine, theirs)
    if critic is None:  # the flags checked by check_init fix the critic's layers too
        raise ValueError(f"--init {cfg.init!r}: its critic's layers differ from this run's")
    agent.load_state_dict({**mine, **actor, **critic})
    meta = found["meta"]
    start = {k: meta[k] for k in ("update", "decisions", "cpu_s")}
    return {"run": cfg.init, "tag": found["tag"], **start, "init": meta.get("init")}


def _init_from_policy(agent: Agent, cfg: SelfPlayConfig) -> dict[str, Any]:
    policy = _init_policy(cfg)
    meta = policy.meta or {}
    copy_policy_layers([m for m in agent.actor if isinstance(m, nn.Linear)], policy)
    # Its own decisions and CPU in all: the chain of runs behind it is named, not re-counted.
    return {"run": cfg.init, "tag": "policy", "update": 0,
            "decisions": int(meta.get("total_decisions", meta.get("decisions", 0))),
            "cpu_s": float(meta.get("total_cpu_s", meta.get("cpu_s", 0.0))),
            "init": None, "init_runs": list(meta.get("init_runs", []))}  # fmt: skip


def init_critic(
    mine: dict[str, torch.Tensor], theirs: dict[str, torch.Tensor]
) -> dict[str, torch.Tensor] | None:
    """Another run's critic for this one: as it is where the shapes match; where this critic
    only takes more inputs (``--privileged-critic`` from a run without), theirs with zero
    weights on the added inputs, so it starts as the same function; else None."""
    critic = {k: v for k, v in theirs.items() if k.startswith("critic.")}
    if set(critic) != {k for k in mine if k.startswith("critic.")}:
        return None
    first = "critic.0.weight"
    for name, value in critic.items():
        if value.shape == mine[name].shape:
            continue
        rows, cols = value.shape if value.dim() == 2 else (0, 0)
        if name != first or mine[name].shape[0] != rows or mine[name].shape[1] < cols:
            return None
        widened = torch.zeros_like(mine[name])
        widened[:, :cols] = value
        critic = {**critic, name: widened}
    return critic


# ---------------------------------------------------------------------------------------------
# The network: an actor MLP (its layers export to ``NumpyPolicy``) and a critic MLP.
# ---------------------------------------------------------------------------------------------
def layer_init(layer: nn.Linear, std: float = math.sqrt(2), bias: float = 0.0) -> nn.Linear:
    """Orthogonal weights, constant bias (CleanRL's initialisation)."""
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


def mlp(sizes: list[int], activation: str, out_std: float) -> nn.Sequential:
    act = {"relu": nn.ReLU, "tanh": nn.Tanh}[activation]
    layers: list[nn.Module] = []
    for a, b in itertools.pairwise(sizes[:-1]):
        layers += [layer_init(nn.Linear(a, b)), act()]
    layers.append(layer_init(nn.Linear(sizes[-2], sizes[-1]), std=out_std))
    return nn.Sequential(*layers)


class Agent(nn.Module):
    """An actor MLP and a critic MLP over the observation vector: separate (the default), or
    sharing their hidden layers (``shared=True``: ``critic`` is the actor's hidden layers and a
    value head, and the hidden layers run once for both)."""

    def __init__(
        self, obs_dim: int, num_actions: int, hidden: list[int], activation: str,
        shared: bool = False, critic_extra: int = 0,
    ) -> None:  # fmt: skip
        super().__init__()
        if shared and critic_extra:
            raise ValueError("a critic with extra inputs cannot share the actor's layers")
        self.activation = activation
        self.shared = shared
        self.critic_extra = critic_extra  # inputs only the critic sees (privileged)
        self.actor = mlp([obs_dim, *hidden, num_actions], activation, out_std=0.01)
        if shared:
            head = layer_init(nn.Linear(hidden[-1], 1), std=1.0)
            self.critic = nn.Sequential(*self.actor[:-1], head)
        else:
            self.critic = mlp([obs_dim + critic_extra, *hidden, 1], activation, out_std=1.0)

    def value(self, obs: torch.Tensor, extra: torch.Tensor | None = None) -> torch.Tensor:
        """The critic's value of the observation and, with ``critic_extra``, its extra inputs."""
        return self._critic(obs, extra).squeeze(-1)

    def _critic(self, obs: torch.Tensor, extra: torch.Tensor | None) -> torch.Tensor:
        """The separate critic on its input: the observation, then the extra inputs if any."""
        return self.critic(obs if extra is None else torch.cat([obs, extra], dim=-1))

    def evaluate(
        self, obs: torch.Tensor, legal: Legal, extra: torch.Tensor | None = None,
        hold_policy: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor]:  # fmt: skip
        """``legal_log_probs(obs, legal)`` and the critic's value (of ``obs`` and ``extra``),
        the shared layers run once. ``hold_policy``: no gradient reaches the actor's layers
        (the log-probabilities are constants, a shared critic's value head alone learns)."""
        with torch.set_grad_enabled(torch.is_grad_enabled() and not hold_policy):
            hidden = self.actor[:-1](obs)
            log_probs = self._legal_log_probs(hidden, legal)
        if self.shared:
            value = self.critic[-1](hidden)
        else:
            value = self._critic(obs, extra)
        return log_probs, value.squeeze(-1)

    def masked_logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The actor's logits with every illegal action's set to ``MASKED_LOGIT`` (the reference
        that ``legal_log_probs`` is tested against)."""
        return self.actor(obs).masked_fill(~mask, MASKED_LOGIT)

    def legal_log_probs(self, obs: torch.Tensor, legal: Legal) -> torch.Tensor:
        """``log_softmax(masked_logits(obs, mask))`` at the legal pairs only, one value per pair.

        A position has about 7 legal actions of 1,631, so only the output layer's rows of those
        actions are multiplied; illegal actions have probability 0 and no gradient either way."""
        return self._legal_log_probs(self.actor[:-1](obs), legal)

    def _legal_log_probs(self, hidden: torch.Tensor, legal: Legal) -> torch.Tensor:
        out = self.actor[-1]
        logits = (hidden[legal.rows] * out.weight[legal.actions]).sum(-1) + out.bias[legal.actions]
        return legal.log_softmax(logits)

    def numpy_policy(self, meta: dict[str, Any]) -> NumpyPolicy:
        """The actor as the project's numpy policy (``ppo:PATH.npz``)."""
        weights = [
            (m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy())
            for m in self.actor
            if isinstance(m, nn.Linear)
        ]
        return NumpyPolicy(weights, activation=self.activation, meta=meta)


@dataclass
class Legal:
    """The legal (row, action) pairs of a batch of masks, in row-major order (``nonzero``)."""

    rows: torch.Tensor
    actions: torch.Tensor
    num_rows: int
    num_actions: int

    @classmethod
    def of(cls, mask: torch.Tensor) -> Legal:
        rows, actions = mask.nonzero(as_tuple=True)
        legal = cls(rows, actions, mask.shape[0], mask.shape[1])
        if len(rows) and torch.unique_consecutive(rows).numel() != legal.num_rows:
            raise ValueError("a row of the mask has no legal action")
        return legal

    def row_sum(self, values: torch.Tensor) -> torch.Tensor:
        """Per row, the sum of ``values`` over its legal pairs."""
        return values.new_zeros(self.num_rows).index_add(0, self.rows, values)

    def row_max(self, values: torch.Tensor) -> torch.Tensor:
        full = values.new_full((self.num_rows,), -math.inf)
        return full.scatter_reduce(0, self.rows, values, "amax")

    def log_softmax(self, logits: torch.Tensor) -> torch.Tensor:
        """Each row's log-softmax over its legal pairs (the shift by the row's maximum is a
        constant of the result, so it carries no gradient)."""
        shifted = logits - self.row_max(logits.detach())[self.rows]
        return shifted - self.row_sum(shifted.exp()).log()[self.rows]

    def position(self, action: torch.Tensor) -> torch.Tensor:
        """Index of each row's ``action`` among the pairs (the action must be legal)."""
        keys = self.rows * self.num_actions + self.actions
        wanted = torch.arange(self.num_rows, device=keys.device) * self.num_actions + action
        return torch.searchsorted(keys, wanted)

    def sample(self, log_probs: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
        """Position of one pair per row drawn from its probabilities, by the Gumbel-max trick
        with the run's own generator (drawn on the CPU, so a run samples the same on any
        device)."""
        u = torch.rand(log_probs.shape, generator=generator).clamp_(min=1e-20)
        score = log_probs - torch.log(-torch.log(u.to(log_probs.device)))
        best = score == self.row_max(score)[self.rows]
        index = torch.arange(len(score), device=score.device)
        first = torch.full((self.num_rows,), len(score), device=score.device)
        return first.scatter_reduce(0, self.rows[best], index[best], "amin")


# ---------------------------------------------------------------------------------------------
# Returns: GAE along each (lane, seat) chain of decisions.
# ---------------------------------------------------------------------------------------------
def seat_advantages(
    actor: np.ndarray,
    rewards: np.ndarray,
    done: np.ndarray,
    values: np.ndarray,
    next_actor: np.ndarray,
    next_value: np.ndarray,
    gamma: float,
    gae_lambda: float,
    learner: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """GAE advantages (T, N) and which decisions have a known outcome (T, N) bool.

    ``learner`` (T, N) bool, when given, marks the decisions the policy made; the others (a
    bot's) are no decisions of any chain: their steps' rewards still count for every seat.

    ``actor`` (T, N): the seat deciding at step t in lane i; ``rewards`` (T, N, P): what each
    seat earned by that step's action; ``done`` (T, N): the game ended with it; ``values``
    (T, N): the critic's value of each decision; ``next_actor``, ``next_value`` (N,): the seat
    to act after the rollout and its value. A decision's reward is its seat's rewards from its
    step until the seat's next decision in the same game (exclusive), or to the game's end (then
    the next value is 0). A decision whose seat does not act again in the rollout (nor at
    ``next_actor``) and whose game does not end has no known outcome: False in the second array,
    advantage 0, and its value bootstraps the seat's decision before it.
    """
    steps, lanes = actor.shape
    players = rewards.shape[2]
    lane = np.arange(lanes)
    acc = np.zeros((lanes, players))  # each seat's rewards since the step being looked at
    next_v = np.zeros((lanes, players))  # the value of each seat's next decision (0: game over)
    next_adv = np.zeros((lanes, players))
    known = np.zeros((lanes, players), dtype=bool)  # whether that next decision is known
    next_v[lane, next_actor] = next_value
    known[lane, next_actor] = True
    advantages = np.zeros((steps, lanes))
    trained = np.zeros((steps, lanes), dtype=bool)
    for t in range(steps - 1, -1, -1):
        ended = done[t]
        acc[ended] = 0.0  # what follows is the next game's
        next_v[ended] = 0.0
        next_adv[ended] = 0.0
        known[ended] = True
        acc += rewards[t]
        seat = actor[t]
        mine = np.ones(lanes, dtype=bool) if learner is None else learner[t]
        ok = known[lane, seat] & mine
        delta = acc[lane, seat] + gamma * next_v[lane, seat] - values[t]
        adv = np.where(ok, delta + gamma * gae_lambda * next_adv[lane, seat], 0.0)
        advantages[t] = adv
        trained[t] = ok
        at, seat = lane[mine], seat[mine]
        next_v[at, seat] = values[t][mine]
        next_adv[at, seat] = adv[mine]
        known[at, seat] = True
        acc[at, seat] = 0.0
    return advantages, trained


# ---------------------------------------------------------------------------------------------
# Lanes: the batch, and its lanes saved as games (``Game.to_dict``) with their game counts.
# ---------------------------------------------------------------------------------------------
def make_batch(cfg: SelfPlayConfig) -> BatchGame:
    return BatchGame(
        num_games=cfg.num_games,
        num_players=cfg.players,
        preset=cfg.preset,
        seed=cfg.seed,
        observation=cfg.observation,
        reward=cfg.reward,
        rounds=parse_rounds(cfg.rounds),
        backend=cfg.backend,
    )


def save_lanes(batch: BatchGame) -> list[dict[str, Any]]:
    return [
        {"game": batch.game(i).to_dict(), "game_index": batch.game_index(i)}
        for i in range(batch.num_games)
    ]


def restore_lanes(
    batch: BatchGame, lanes: list[tuple[Game, int]]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Put the saved lanes, (game, game count) pairs, back (after ``reset``); their (obs, mask,
    actor) as ``step`` gives
    them, from the observation encoder the AEC env uses."""
    if len(lanes) != batch.num_games:
        raise ValueError(f"the checkpoint holds {len(lanes)} lanes, the run {batch.num_games}")
    obs = np.zeros((batch.num_games, batch.obs_dim), dtype=np.float32)
    mask = np.zeros((batch.num_games, batch.num_actions), dtype=bool)
    actor = np.zeros(batch.num_games, dtype=np.int64)
    for i, (game, game_index) in enumerate(lanes):
        batch.set_game(i, game, game_index=game_index)
        game = batch.game(i)
        actor[i] = game.actor
        obs[i] = encode_observation(game, game.actor, batch.observation_layout)
        mask[i, game.legal_actions()] = True
    return obs, mask, actor


# ---------------------------------------------------------------------------------------------
# Checkpoints: ``last.*`` written to temporary files and moved into place, ``.json`` last (it
# marks a whole checkpoint); the one replaced is kept as ``prev.*``.
# ---------------------------------------------------------------------------------------------
def save_checkpoint(
    directory: Path,
    agent: Agent,
    optimizer: torch.optim.Optimizer,
    generator: torch.Generator,
    batch: BatchGame,
    meta: dict[str, Any],
) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    pid = os.getpid()
    tmp = {suffix: directory / f".last.{pid}.tmp{suffix}" for suffix in CHECKPOINT_FILES}
    try:
        torch.save(
            {
                "model": agent.state_dict(),
                "optimizer": optimizer.state_dict(),
                "generator": generator.get_state(),
            },
            tmp[".pt"],
        )
        tmp[".rng.json"].write_text(json.dumps(rng_state()))
        tmp[".lanes.json"].write_text(json.dumps(save_lanes(batch)))
        tmp[".json"].write_text(json.dumps({**meta, "saved_at": time.time()}, indent=2))
    except BaseException:
        for path in tmp.values():
            path.unlink(missing_ok=True)
        raise
    if (directory / "last.json").exists():
        for suffix in CHECKPOINT_FILES:
            if (directory / f"last{suffix}").exists():
                os.replace(directory / f"last{suffix}", directory / f"prev{suffix}")
    for suffix in CHECKPOINT_FILES:
        os.replace(tmp[suffix], directory / f"last{suffix}")


def load_checkpoint(directory: Path, tag: str) -> dict[str, Any]:
    """A checkpoint's tensors (read with ``weights_only=True``: nothing is unpickled) and lanes."""
    try:
        state = torch.load(directory / f"{tag}.pt", map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:  # a foreign object in the file, or no torch file at all
        raise ValueError(f"{tag}.pt holds more than tensors and plain data; not read") from None
    if not isinstance(state, dict) or {"model", "optimizer", "generator"} - set(state):
        raise ValueError("not a self-play checkpoint")
    lanes = json.loads((directory / f"{tag}.lanes.json").read_text())
    try:
        state["lanes"] = [(Game.from_dict(lane["game"]), int(lane["game_index"])) for lane in lanes]
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(
            f"{tag}.lanes.json: {str(exc).splitlines()[0] or type(exc).__name__}"
        ) from None
    return state


def find_checkpoint(run_dir: Path) -> dict[str, Any]:
    """The newest readable checkpoint of a run: ``{"tag", "meta", "state", "skipped"}``;
    ValueError (one line) if there is none."""
    if not run_dir.is_dir():
        raise ValueError(f"--out {run_dir}: no such run directory to resume")
    directory = run_dir / "checkpoints"
    problems = []
    for tag in RESUME_ORDER:
        try:
            meta = json.loads((directory / f"{tag}.json").read_text())
            if not isinstance(meta.get("config"), dict) or "update" not in meta:
                raise ValueError("incomplete")
            state = load_checkpoint(directory, tag)
            read_rng(directory, tag)
        except FileNotFoundError:
            problems.append(f"no {tag} checkpoint")
            continue
        except (ValueError, OSError, RuntimeError, EOFError) as exc:
            problems.append(f"{tag} checkpoint unreadable ({str(exc).splitlines()[0]})")
            continue
        return {"tag": tag, "meta": meta, "state": state, "skipped": problems}
    raise ValueError(f"--out {run_dir}: nothing to resume from: {'; '.join(problems)}")


# ---------------------------------------------------------------------------------------------
# progress.csv: one row per update; a resumed run drops the rows after its checkpoint.
# ---------------------------------------------------------------------------------------------
PROGRESS_FIELDS = (
    "update", "decisions", "trained_decisions", "cpu_s", "wall_s", "decisions_per_cpu_s",
    "round_points", "round_reward", "games", "pg_loss", "v_loss", "entropy", "approx_kl",
    "clipfrac", "explained_variance", "close_rate",
)  # fmt: skip


def keep_progress_rows(path: Path, last_update: int) -> None:
    """Drop the rows of updates after ``last_update`` (written after the checkpoint resumed)."""
    if not path.exists():
        return
    with path.open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if int(r["update"]) <= last_update]
    write_progress(path, rows, mode="w")


def write_progress(path: Path, rows: list[dict[str, Any]], mode: str = "a") -> None:
    new = mode == "w" or not path.exists()
    with path.open(mode, newline="") as f:
        writer = csv.DictWriter(f, fieldnames=PROGRESS_FIELDS)
        if new:
            writer.writeheader()
        writer.writerows(rows)


# ---------------------------------------------------------------------------------------------
# Training: seeding, lanes, network, then rollout / advantages / update until --total-steps.
# ---------------------------------------------------------------------------------------------
def policy_meta(
    cfg: SelfPlayConfig, decisions: int, cpu_s: float | None = None, init: Any = None
) -> dict[str, Any]:
    """What the exported policy was trained for (``model_metadata``), and by what: with
    ``init`` (an --init run's start), also the decisions and CPU seconds in all."""
    version = int(cfg.observation[1])
    meta = model_metadata(cfg.players, cfg.preset, parse_rounds(cfg.rounds), version)
    meta = {**meta, "trainer": "selfplay", "decisions": decisions}
    if cpu_s is not None:
        meta["cpu_s"] = round(cpu_s, 3)
    while init:  # a chain of --init runs: add each start (a policy file: and the runs behind it)
        meta["init_runs"] = [*meta.get("init_runs", []), init["run"], *init.get("init_runs", [])]
        meta["total_decisions"] = meta.get("total_decisions", decisions) + init["decisions"]
        if cpu_s is not None:
            meta["total_cpu_s"] = round(meta.get("total_cpu_s", cpu_s) + init["cpu_s"], 3)
        init = init.get("init")
    return meta


def critic_extra(cfg: SelfPlayConfig) -> int:
    """The critic's inputs beyond the observation: the other seats' hands with
    ``--privileged-critic`` (``BatchGame.hidden_hands``, flattened), else none."""
    return (cfg.players - 1) * NUM_TYPES if cfg.privileged_critic else 0


def kept_policy_path(run_dir: Path, decisions: int) -> Path:
    """Where ``--policy-every`` keeps the policy after ``decisions`` (sorted by name = by age)."""
    return run_dir / "policies" / f"policy_{decisions:012d}.npz"


def train(cfg: SelfPlayConfig, saved: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run the checked configuration, fresh or from ``saved`` (``find_checkpoint``); returns the
    final counters (the meta of the last checkpoint)."""
    run_dir = Path(cfg.out)
    ckpt_dir = run_dir / "checkpoints"
    run_dir.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(cfg.threads)
    device = torch.device(cfg.device)

    # Seeding: the network's initialisation from torch's global generator, the sampling and the
    # minibatches from the run's own, the deals from BatchGame's seed.
    torch.manual_seed(cfg.seed)
    generator = torch.Generator().manual_seed(cfg.seed)
    batch = make_batch(cfg)
    obs, mask, actor = batch.reset()
    agent = Agent(batch.obs_dim, batch.num_actions, parse_ints(cfg.hidden), cfg.activation,
                  shared=cfg.shared_trunk, critic_extra=critic_extra(cfg))  # fmt: skip
    agent.to(device)
    optimizer = torch.optim.Adam(agent.parameters(), lr=cfg.learning_rate, eps=1e-5)
    counters: dict[str, Any] = {"update": 0, "decisions": 0, "cpu_s": 0.0, "wall_s": 0.0,
                                "games": 0, "init": None}  # fmt: skip
    if saved is None and cfg.init:
        counters["init"] = init_network(agent, cfg)
        print(f"starting from {cfg.init} ({counters['init']['decisions']:,} decisions)")
    if saved is not None:
        state = saved["state"]
        agent.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        generator.set_state(state["generator"])
        restore_rng(ckpt_dir, saved["tag"])
        obs, mask, actor = restore_lanes(batch, state["lanes"])
        counters = {k: saved["meta"].get(k) for k in counters}
        keep_progress_rows(run_dir / "progress.csv", counters["update"])
        for problem in saved["skipped"]:
            print(f"warning: {problem}; resuming from the {saved['tag']} checkpoint", flush=True)
        print(f"resuming {run_dir} at update {counters['update']}", flush=True)
    else:
        (run_dir / "progress.csv").unlink(missing_ok=True)  # a failed start's rows
    (run_dir / "config.json").write_text(json.dumps(dataclasses.asdict(cfg), indent=2))
    print(f"run {run_dir}: {json.dumps(dataclasses.asdict(cfg))}", flush=True)

    stop = StopRequest()
    stop.install()
    try:
        counters = _learn(cfg, batch, agent, optimizer, generator, device, obs, mask, actor,
                          counters, stop)  # fmt: skip
    finally:
        stop.uninstall()
    if stop.requested:
        print(f"stopped at update {counters['update']}; continue with --out {run_dir} --resume")
    else:
        task = f"--players {cfg.players} --preset {cfg.preset}"
        task += "" if parse_rounds(cfg.rounds) is None else f" --rounds {cfg.rounds}"
        print(
            f"done: {counters['decisions']:,} decisions; the policy is {run_dir / 'policy.npz'}\n"
            f"evaluate it: python -m agents.evaluate --agents ppo:{run_dir / 'policy.npz'},strong "
            f"{task} --games 200",
            flush=True,
        )
    return counters


def _learn(
    cfg: SelfPlayConfig,
    batch: BatchGame,
    agent: Agent,
    optimizer: torch.optim.Optimizer,
    generator: torch.Generator,
    device: torch.device,
    obs: np.ndarray,
    mask: np.ndarray,
    actor: np.ndarray,
    counters: dict[str, Any],
    stop: StopRequest,
) -> dict[str, Any]:
    run_dir = Path(cfg.out)
    n, t_len, p = cfg.num_games, cfg.steps_per_rollout, cfg.players
    t0, cpu0 = time.time(), time.process_time()
    base_wall, base_cpu, decisions0 = counters["wall_s"], counters["cpu_s"], counters["decisions"]
    last_line: float | None = None
    saved_update = counters["update"]

    def meta() -> dict[str, Any]:
        return {**counters, "config": dataclasses.asdict(cfg)}

    def checkpoint() -> None:
        nonlocal saved_update
        save_checkpoint(run_dir / "checkpoints", agent, optimizer, generator, batch, meta())
        agent.numpy_policy(
            policy_meta(cfg, counters["decisions"], counters["cpu_s"], counters["init"])
        ).save_npz(str(run_dir / "policy.npz"))
        saved_update = counters["update"]

    buf = Buffers.empty(t_len, n, p, batch.obs_dim, batch.num_actions, agent.critic_extra)
    seats = _learner_seats(cfg, batch)

    while counters["decisions"] < cfg.total_steps and not stop.requested:
        # ---- rollout: every lane's seat to act is played by the current policy (or a bot)
        obs, mask, actor, next_value, tally = _rollout(
            batch,
            agent,
            generator,
            device,
            buf,
            seats,
            obs,
            mask,
            actor,
            (cfg.win_bonus, cfg.close_bonus),
        )

        # ---- advantages along each (lane, seat) chain
        advantages, trained = seat_advantages(
            buf.actor, buf.reward, buf.done, buf.value, actor, next_value, cfg.gamma,
            cfg.gae_lambda, None if seats is None else buf.learner,
        )  # fmt: skip
        returns = advantages + buf.value
        keep = np.flatnonzero(trained.reshape(-1))
        warmup = counters["update"] < cfg.critic_warmup
        stats = _update(cfg, agent, optimizer, generator, device, keep, buf, advantages, returns,
                        warmup)  # fmt: skip

        # ---- counters, progress, checkpoints
        counters["update"] += 1
        counters["decisions"] += n * t_len
        counters["games"] += tally["games"]
        counters["wall_s"] = base_wall + time.time() - t0
        counters["cpu_s"] = base_cpu + time.process_time() - cpu0
        row = {
            **{k: counters[k] for k in ("update", "decisions", "games")},
            "cpu_s": round(counters["cpu_s"], 3),
            "wall_s": round(counters["wall_s"], 3),
            "decisions_per_cpu_s": round(counters["decisions"] / max(counters["cpu_s"], 1e-9), 1),
            "trained_decisions": len(keep),
            "round_points": tally["points"] / tally["seat_rounds"] if tally["seat_rounds"] else "",
            "round_reward": tally["reward"] / tally["seat_rounds"] if tally["seat_rounds"] else "",
            "close_rate": tally["closes"] / tally["seat_rounds"] if tally["seat_rounds"] else "",
            **stats,
        }
        write_progress(run_dir / "progress.csv", [row])
        now = time.time()
        if last_line is None or now - last_line >= PROGRESS_EVERY_S:
            last_line = now
            print(progress_text(row, cfg.total_steps, decisions0, now - t0), flush=True)
        if counters["update"] % cfg.checkpoint_every == 0:
            checkpoint()
        if cfg.policy_every and counters["update"] % cfg.policy_every == 0:
            path = kept_policy_path(run_dir, counters["decisions"])
            path.parent.mkdir(exist_ok=True)
            kept = policy_meta(cfg, counters["decisions"], counters["cpu_s"], counters["init"])
            agent.numpy_policy(kept).save_npz(str(path))
    if saved_update != counters["update"] or not (run_dir / "policy.npz").exists():
        checkpoint()
    return counters


@dataclass
class Buffers:
    """One rollout's arrays, (steps, lanes, ...): what each step's lanes saw and did."""

    obs: np.ndarray
    mask: np.ndarray
    actor: np.ndarray
    action: np.ndarray
    logprob: np.ndarray
    value: np.ndarray
    reward: np.ndarray
    done: np.ndarray
    learner: np.ndarray  # whether the policy made that decision (not a bot)
    extra: np.ndarray  # what only the critic saw (the other seats' hands), or no columns

    @classmethod
    def empty(
        cls, steps: int, lanes: int, players: int, obs_dim: int, actions: int, extra: int = 0
    ) -> Buffers:
        shape = (steps, lanes)
        return cls(
            obs=np.zeros((*shape, obs_dim), dtype=np.float32),
            mask=np.zeros((*shape, actions), dtype=bool),
            actor=np.zeros(shape, dtype=np.int64),
            action=np.zeros(shape, dtype=np.int64),
            logprob=np.zeros(shape, dtype=np.float32),
            value=np.zeros(shape, dtype=np.float32),
            reward=np.zeros((*shape, players), dtype=np.float32),
            done=np.zeros(shape, dtype=bool),
            learner=np.ones(shape, dtype=bool),
            extra=np.zeros((*shape, extra), dtype=np.float32),
        )


@dataclass
class Seats:
    """Who plays each (lane, seat) when not every seat is the policy: ``policy`` (lanes,
    players) bool, the learner's seats; ``kinds`` the compiled bots' kinds at every seat (None
    without bots; only the bots' entries are asked); ``nets`` (lanes, players) the index of a
    frozen network in ``models`` at that seat, -1 elsewhere."""

    policy: np.ndarray
    kinds: np.ndarray | None
    nets: np.ndarray
    models: list[NumpyPolicy]

    def actions(self, batch: BatchGame, lanes: np.ndarray, mine: np.ndarray, obs: np.ndarray,
                mask: np.ndarray, actor: np.ndarray) -> np.ndarray:  # fmt: skip
        """The bots' and the frozen networks' actions at their lanes, -1 at the learner's."""
        net = self.nets[lanes, actor]
        if self.kinds is None:
            out = np.full(len(lanes), -1, dtype=np.int64)
        else:
            out = batch.bot_actions(self.kinds, active=~mine & (net < 0))
        for k, model in enumerate(self.models):
            rows = np.flatnonzero(net == k)
            if rows.size:
                out[rows] = model.batch_actions(obs[rows], mask[rows])
        return out


def _learner_seats(cfg: SelfPlayConfig, batch: BatchGame) -> Seats | None:
    """Who plays each seat (``Seats``); None in self-play.

    ``--opponents``: lane i's learner seat is i % players, and the bots are named in turn by
    seat. ``--pool``: each block of ``players`` lanes takes the next entry in turn; a ``self``
    lane is the policy at every seat, a bot's or a network's lane has the learner at seat
    i % players and that bot or network at the others."""
    if not cfg.opponents and not cfg.pool:
        return None
    n, p = cfg.num_games, cfg.players
    policy = np.zeros((n, p), dtype=bool)
    policy[np.arange(n), np.arange(n) % p] = True
    nets = np.full((n, p), -1, dtype=np.int64)
    models: list[NumpyPolicy] = []
    if cfg.opponents:
        names = cfg.opponents.split(",")
        rows = [[names[(i + s) % len(names)] for s in range(p)] for i in range(n)]
        return Seats(policy, batch.bot_kinds(rows), nets, models)
    return _pool_seats(cfg, batch, policy, nets)


def _pool_seats(
    cfg: SelfPlayConfig, batch: BatchGame, policy: np.ndarray, nets: np.ndarray
) -> Seats:
    """``_learner_seats`` for ``--pool``, from the learner's seats and no networks."""
    n, p = cfg.num_games, cfg.players
    entries = parse_pool(cfg.pool)
    turns = [name for name, weight in entries for _ in range(weight)]
    tables = [turns[(i // p) % len(turns)] for i in range(n)]
    networks = [name for name, _ in entries if name.startswith("ppo:")]
    models = [pool_network(name, cfg, batch.obs_dim, batch.num_actions) for name in networks]
    for i, table in enumerate(tables):
        if table == "self":
            policy[i] = True
        elif table in networks:
            nets[i][~policy[i]] = networks.index(table)
    bots = [[t if t in BOT_NAMES else BOT_NAMES[0]] * p for t in tables]
    kinds = batch.bot_kinds(bots) if set(tables) & set(BOT_NAMES) else None
    return Seats(policy, kinds, nets, models)


def win_bonus(batch: BatchGame, done: np.ndarray, weight: float) -> np.ndarray:
    """(lanes, players): ``weight`` times the win reward of every game that just ended, 0
    elsewhere (``BatchGame.win_rewards``)."""
    return weight * batch.win_rewards(done)


def closers(batch: BatchGame) -> np.ndarray:
    """(lanes, players) bool: the seat that closed each round that just ended (its round
    points are 0, or the one-turn bonus when it is not positive; every other seat holds cards
    and scores them). No seat in lanes whose round did not end or ended with no closer."""
    return batch.round_end[:, None] & (batch.round_points <= 0)


def close_bonus(batch: BatchGame, points: float) -> np.ndarray:
    """(lanes, players): ``points`` (in reward units, over ``POINTS_SCALE``) to the seat that
    closed each round that just ended and ``points / (players - 1)`` less to each other seat of
    that lane (zero-sum), 0 elsewhere."""
    closed = closers(batch)
    p = batch.num_players
    share = np.where(closed, 1.0, -1.0 / (p - 1)) * closed.any(axis=1, keepdims=True)
    return (points / POINTS_SCALE * share).astype(np.float32)


def _shaped(
    batch: BatchGame, rewards: np.ndarray, done: np.ndarray, bonus: tuple[float, float]
) -> np.ndarray:
    """``rewards`` with the win bonus of the games that just ended and the close bonus of the
    rounds that just ended (``bonus``: their weights; 0 adds nothing)."""
    if bonus[0] and done.any():
        rewards = rewards + win_bonus(batch, done, bonus[0])
    if bonus[1] and batch.round_end.any():
        rewards = rewards + close_bonus(batch, bonus[1])
    return rewards


def _rollout(
    batch: BatchGame,
    agent: Agent,
    generator: torch.Generator,
    device: torch.device,
    buf: Buffers,
    seats: Seats | None,
    obs: np.ndarray,
    mask: np.ndarray,
    actor: np.ndarray,
    bonus: tuple[float, float] = (0.0, 0.0),
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, float]]:
    """One rollout into ``buf``: the position after it (obs, mask, actor), the value of its
    next decision, and the round points, rewards, seat-rounds and games it finished (the
    learner's, with bots at the table). ``bonus``: the win and the close bonus weights."""
    tally = {"points": 0.0, "reward": 0.0, "seat_rounds": 0.0, "games": 0, "closes": 0}
    lanes = np.arange(batch.num_games)
    privileged = buf.extra.shape[-1] > 0
    with torch.no_grad():
        for t in range(len(buf.obs)):
            buf.obs[t], buf.mask[t], buf.actor[t] = obs, mask, actor
            if privileged:
                buf.extra[t] = batch.hidden_hands().reshape(batch.num_games, -1)
            mine = None if seats is None else seats.policy[lanes, actor]  # the policy's lanes
            if seats is not None:
                buf.learner[t] = mine
                buf.action[t] = seats.actions(batch, lanes, mine, obs, mask, actor)
            rows = slice(None) if mine is None else np.flatnonzero(mine)
            x = torch.from_numpy(obs[rows]).to(device)
            legal = Legal.of(torch.from_numpy(mask[rows]).to(device))
            if agent.shared:
                log_probs, value = agent.evaluate(x, legal)
                buf.value[t, rows] = value.cpu().numpy()
            else:  # the critic's values after the rollout, in larger products
                log_probs = agent.legal_log_probs(x, legal)
            chosen = legal.sample(log_probs, generator)
            buf.action[t, rows] = legal.actions[chosen].cpu().numpy()
            buf.logprob[t, rows] = log_probs[chosen].cpu().numpy()
            obs, mask, actor, rewards, done = batch.step(buf.action[t])
            _tally(tally, batch, rewards, done, None if seats is None else seats.policy)
            rewards = _shaped(batch, rewards, done, bonus)
            buf.reward[t], buf.done[t] = rewards, done
        if not agent.shared:  # the values after the rollout (the critic did not change)
            flat_obs = buf.obs.reshape(-1, buf.obs.shape[-1])
            flat_extra = buf.extra.reshape(len(flat_obs), -1)
            flat_value = buf.value.reshape(-1)
            for start in range(0, len(flat_obs), VALUE_CHUNK):
                rows = slice(start, start + VALUE_CHUNK)
                chunk = torch.from_numpy(flat_obs[rows]).to(device)
                extra = torch.from_numpy(flat_extra[rows]).to(device) if privileged else None
                flat_value[rows] = agent.value(chunk, extra).cpu().numpy()
        x = torch.from_numpy(obs).to(device)
        extra = None
        if privileged:
            extra = torch.from_numpy(batch.hidden_hands().reshape(batch.num_games, -1)).to(device)
        next_value = agent.value(x, extra).cpu().numpy()
    return obs, mask, actor, next_value, tally


def _tally(
    tally: dict[str, float],
    batch: BatchGame,
    rewards: np.ndarray,
    done: np.ndarray,
    policy: np.ndarray | None,
) -> None:
    """Add one step's ended rounds (points, rewards, seat-rounds and closes of the policy's seats)
    and finished games to ``tally``."""
    ended = batch.round_end
    if policy is None:  # every seat is the policy's
        tally["points"] += float(batch.round_points[ended].sum())
        tally["reward"] += float(rewards[ended].sum())
        tally["seat_rounds"] += batch.num_players * int(ended.sum())
        tally["closes"] += int(closers(batch).sum()) if ended.any() else 0
    else:
        seats = policy[ended]
        tally["points"] += float(batch.round_points[ended][seats].sum())
        tally["reward"] += float(rewards[ended][seats].sum())
        tally["seat_rounds"] += int(seats.sum())
        tally["closes"] += int((closers(batch) & policy).sum()) if ended.any() else 0
    tally["games"] += int(done.sum())


def _update(
    cfg: SelfPlayConfig,
    agent: Agent,
    optimizer: torch.optim.Optimizer,
    generator: torch.Generator,
    device: torch.device,
    keep: np.ndarray,
    buf: Buffers,
    advantages: np.ndarray,
    returns: np.ndarray,
    warmup: bool = False,
) -> dict[str, float]:
    """PPO's clipped update over the decisions ``keep`` (flat indices of the rollout ``buf``);
    ``warmup``: the critic's loss alone moves the network (the policy is held)."""

    def flat(a: np.ndarray, dtype: torch.dtype | None = None) -> torch.Tensor:
        x = torch.from_numpy(a.reshape(-1, *a.shape[2:])[keep])
        return x.to(device=device, dtype=dtype or x.dtype)

    size = len(keep)
    if size == 0:  # a rollout shorter than any seat's turn: nothing has a known outcome yet
        return {}
    obs, mask, action = flat(buf.obs), flat(buf.mask), flat(buf.action)
    old_logprob, old_value = flat(buf.logprob), flat(buf.value)
    extra = flat(buf.extra) if buf.extra.shape[-1] else None
    adv, ret = flat(advantages, torch.float32), flat(returns, torch.float32)
    mb_size = max(1, math.ceil(size / cfg.num_minibatches))
    clipfracs = []
    for _epoch in range(cfg.update_epochs):
        order = torch.randperm(size, generator=generator).to(device)
        for start in range(0, size, mb_size):
            mb = order[start : start + mb_size]
            legal = Legal.of(mask[mb])
            log_probs, new_value = agent.evaluate(
                obs[mb], legal, None if extra is None else extra[mb], hold_policy=warmup
            )
            new_logprob = log_probs[legal.position(action[mb])]
            entropy = -legal.row_sum(log_probs.exp() * log_probs).mean()
            log_ratio = new_logprob - old_logprob[mb]
            ratio = log_ratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - log_ratio).mean()  # Schulman's k3 estimator
                clipfracs.append(((ratio - 1).abs() > cfg.clip_coef).float().mean().item())
            mb_adv = adv[mb]
            mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std(correction=0) + 1e-8)
            pg_loss = torch.max(
                -mb_adv * ratio, -mb_adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)
            ).mean()
            v_loss = 0.5 * ((new_value - ret[mb]) ** 2).mean()
            loss = pg_loss - cfg.ent_coef * entropy + cfg.vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), cfg.max_grad_norm)
            optimizer.step()
    var = ret.var(correction=0).item()
    explained = float("nan") if var == 0 else 1 - (ret - old_value).var(correction=0).item() / var
    return {
        "pg_loss": pg_loss.item(),
        "v_loss": v_loss.item(),
        "entropy": entropy.item(),
        "approx_kl": approx_kl.item(),
        "clipfrac": float(np.mean(clipfracs)),
        "explained_variance": explained,
    }


def progress_text(row: dict[str, Any], total: int, decisions0: int, elapsed: float) -> str:
    """The progress line (steps, time left) with the update's throughput and losses."""
    line = progress_line(row["decisions"], total, decisions0, elapsed)
    points = row["round_points"]
    rounds = (
        "no round ended"
        if points == ""
        else f"round points {points:.1f}/seat, round reward {row['round_reward']:+.3f}, "
        f"closes {row['close_rate']:.3f}/seat-round"
    )
    losses = (
        f"pg {row['pg_loss']:+.4f} v {row['v_loss']:.4f} ent {row['entropy']:.3f} "
        f"kl {row['approx_kl']:.4f}"
        if "pg_loss" in row
        else "no update (no decision with a known outcome)"
    )
    return (
        f"{line}; update {row['update']}, {row['decisions_per_cpu_s']:,.0f} decisions/CPU-s, "
        f"{rounds}, {losses}"
    )


def main(argv: list[str] | None = None) -> int:
    cfg, saved = parse_args(argv)
    train(cfg, saved)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
