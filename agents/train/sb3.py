"""Train a MaskablePPO agent for Continental (sb3-contrib), CleanRL style: one file, top to bottom.

The learner observes ``continental_v1`` (the v0 vector followed by the derived features of
``continental_env.features``; ``--no-features`` trains on ``continental_v0``) and plays one random
seat of a table whose other seats are opponents from a pool
(``agents.train.single_agent.make_env``): heuristic bots by name (``agents.make_agent``) and ``self``,
frozen snapshots of the learner taken every ``--snapshot-every`` steps. Rewards are the learner's
per-round relative rewards ((mean of the others' points - own points) / 100 at each round's end).

    continental train --opponents greedy --total-timesteps 5000000      # a run in runs/NAME
    continental train --resume runs/NAME --total-timesteps 8000000     # continue it
    tensorboard --logdir runs
    continental train --game knock --opponents greedy,strong,self    # the knock game (Part 3)

``--game fifteen|knock`` trains a side game's learner seat (``agents.train.side_single_agent``: chips
rewards, ``--game-options`` such as ``hands=1`` or ``stake=50``); ``--preset``, ``--rounds``
and ``--init-policy`` are the contract game's; ``--bc-teacher`` clones a side game's bot. Checkpoints, resume and snapshots
work the same, and the models record their game (``side_metadata``).

(``python train.py ...`` and ``python -m agents.train ...`` are the same command.) Every flag is
checked before anything is created: a bad value is one line naming the flag (exit status 2) and
leaves no run directory.

A run directory holds TensorBoard logs, ``checkpoints/last.zip`` + ``last.json`` (written every
``--checkpoint-every`` steps, atomically; the one before is kept as ``prev.*``, and ``--resume``
falls back to it if the latest cannot be read), ``checkpoints/best.zip`` (best periodic
evaluation against ``--eval-opponent`` on duplicate deals) and ``snapshots/*.npz``. Every model
zip records the environment, its version and the table size it was trained for
(``agents.bots.ppo_agent.model_metadata``). ``--resume`` restores the model, the step counter, the
configuration (flags given on the command line override it, e.g. a new opponent pool) and the RNG
states, and continues training without resetting the counter. SIGTERM or Ctrl-C (SIGINT) finishes
the current step, writes the final checkpoint and exits with status 0. Play a checkpoint with
``ppo:runs/NAME/checkpoints/best.zip`` in ``agents.evaluate.harness``.
"""

from __future__ import annotations

# ---------------------------------------------------------------------------------------------
# Imports
# ---------------------------------------------------------------------------------------------
import argparse
import dataclasses
import json
import math
import os
import pickle
import random
import shutil
import signal
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import (
    DummyVecEnv,
    SubprocVecEnv,
    VecEnv,
    VecEnvWrapper,
    VecMonitor,
)
from tqdm import tqdm

from agents import make_agent
from agents.bots.ppo_agent import check_table, model_metadata, write_zip_metadata
from agents.cli import ArgumentParser, parse_names, parse_rounds
from agents.train.single_agent import make_env, make_worker_env
from continental_env.rewards import relative_reward
from continental_env.rules import PRESETS, resolve_rules


# ---------------------------------------------------------------------------------------------
# Configuration: every option with its help text (``python train.py --help``).
# ---------------------------------------------------------------------------------------------
def opt(default: Any, help: str) -> Any:
    """A config field with its help text."""
    return field(default=default, metadata={"help": help})


@dataclass
class Config:
    exp_name: str = opt("ppo_continental", "prefix of the run name")
    game: str = opt("contract", "game: contract, fifteen or knock (RULES.md Parts 1-3)")
    game_options: str = opt("", "side game options, key=value,... (fifteen: hands=1)")
    run_name: str = opt("", "run directory name under --runs-dir (default: generated)")
    runs_dir: str = opt("runs", "where run directories (TensorBoard logs, checkpoints) go")
    seed: int = opt(1, "seeds python, numpy, torch and every environment")
    players: int = opt(4, "seats at the table")
    preset: str = opt("continental", "rules preset: continental, continental_us, continental_es")
    rounds: str = opt("all", "rounds to play: 'all', one round ('1') or a list ('1,2,3')")
    opponents: str = opt("greedy", "opponent pool, comma separated agent names; 'self' = snapshots")
    round_episodes: bool = opt(True, "end the learner's episode at each round's end")
    total_timesteps: int = opt(2_000_000, "learner decisions to train for, in all (not per run)")
    num_envs: int = opt(8, "environments stepped together (one policy forward for all)")
    vec_env: str = opt("subproc", "'subproc' (one process per env) or 'dummy' (in process)")
    net_arch: str = opt("256,256", "hidden layer sizes of the policy and value MLPs")
    activation: str = opt("relu", "hidden activation: relu or tanh")
    learning_rate: float = opt(3e-4, "Adam learning rate")
    n_steps: int = opt(256, "rollout length per environment between updates")
    batch_size: int = opt(1024, "minibatch size")
    n_epochs: int = opt(4, "passes over each rollout")
    gamma: float = opt(0.995, "discount factor")
    gae_lambda: float = opt(0.95, "GAE lambda")
    clip_range: float = opt(0.2, "PPO clip range")
    ent_coef: float = opt(0.01, "entropy bonus coefficient")
    vf_coef: float = opt(0.5, "value loss coefficient")
    max_grad_norm: float = opt(0.5, "gradient clipping norm")
    target_kl: float = opt(0.0, "stop an update's epochs early past this KL (0: never)")
    snapshot_every: int = opt(200_000, "steps between frozen snapshots for 'self' opponents")
    checkpoint_every: int = opt(100_000, "steps between checkpoints (last.zip)")
    eval_every: int = opt(250_000, "steps between evaluations against --eval-opponent (0: never)")
    eval_opponent: str = opt("greedy", "bot the periodic evaluation plays against")
    eval_deals: int = opt(30, "duplicate deals per periodic evaluation")
    bc_teacher: str = opt("", "warm start: imitate this bot before PPO (empty: no warm start)")
    bc_samples: int = opt(400_000, "teacher decisions to imitate")
    bc_epochs: int = opt(3, "passes over the teacher's decisions")
    bc_learning_rate: float = opt(1e-3, "Adam learning rate of the warm start")
    bc_data: str = opt(
        "", "side games: the teacher's decisions are read from (or first saved to) this .npz"
    )
    bc_augment_suits: bool = opt(
        False, "side games: imitate each minibatch under a random relabelling of the suits"
    )
    features: bool = opt(
        True,
        "observe continental_v1 (the v0 vector followed by the derived features); "
        "--no-features: continental_v0",
    )
    init_policy: str = opt(
        "", "start from this MaskablePPO .zip (a clone from agents.train.imitation)"
    )
    kl_coef: float = opt(0.0, "KL(init policy || policy) penalty at the start (0: none)")
    kl_anneal_steps: int = opt(1_000_000, "learner steps over which --kl-coef falls to 0")
    progress: bool = opt(True, "show a progress bar")
    resume: str = opt("", "a run directory to continue from its last checkpoint")


def build_parser() -> ArgumentParser:
    """One flag per ``Config`` field, with its help text; absent flags stay absent."""
    parser = ArgumentParser(prog="continental train", description=__doc__.split("\n")[0])
    for f in dataclasses.fields(Config):
        flag = "--" + f.name.replace("_", "-")
        if f.type in ("bool", bool):
            parser.add_argument(
                flag,
                action=argparse.BooleanOptionalAction,
                default=argparse.SUPPRESS,
                help=f"{f.metadata['help']} (default: {f.default})",
            )
        else:
            kind = {"int": int, "float": float, "str": str}[str(f.type)]
            parser.add_argument(
                flag,
                type=kind,
                default=argparse.SUPPRESS,
                help=f"{f.metadata['help']} (default: {f.default})",
            )
    return parser


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
        validate(cfg)
    except ValueError as exc:
        parser.error(str(exc))
    return cfg, set(given), saved


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def validate(cfg: Config) -> None:
    """ValueError naming the first bad flag; builds every bot and model the run will need."""

    def need(ok: bool, name: str, why: str) -> None:
        if not ok:
            raise ValueError(f"{_flag(name)} {getattr(cfg, name)!r}: {why}")

    for name in ("learning_rate", "gamma", "gae_lambda", "clip_range", "ent_coef", "vf_coef",
                 "max_grad_norm", "target_kl", "bc_learning_rate", "kl_coef"):  # fmt: skip
        need(math.isfinite(getattr(cfg, name)), name, "must be a finite number")
    need(cfg.exp_name != "" and os.sep not in cfg.exp_name, "exp_name", "a non-empty name, no /")
    need(os.sep not in cfg.run_name and cfg.run_name not in (".", ".."), "run_name", "a name, no /")
    need(0 <= cfg.seed < 2**32, "seed", "must be in 0 .. 2**32 - 1")
    need(cfg.game in ("contract", "fifteen", "knock"), "game", "choose contract, fifteen or knock")
    side = cfg.game != "contract"
    if side:
        validate_side(cfg)
    need(cfg.preset in PRESETS, "preset", f"choose one of {', '.join(PRESETS)}")
    rules = resolve_rules(cfg.preset)
    rounds = parse_rounds(cfg.rounds)  # its message names the flag
    try:
        if rounds is not None:
            rules = rules.with_rounds(tuple(rounds))
    except ValueError as exc:
        raise ValueError(f"--rounds {cfg.rounds!r}: {exc}") from None
    try:
        if not side:
            rules.check_players(cfg.players)
    except ValueError as exc:
        raise ValueError(f"--players {cfg.players}: {exc}") from None
    need(cfg.total_timesteps >= 1, "total_timesteps", "must be at least 1")
    need(cfg.num_envs >= 1, "num_envs", "must be at least 1")
    need(cfg.vec_env in ("subproc", "dummy"), "vec_env", "choose 'subproc' or 'dummy'")
    try:
        hidden = parse_ints(cfg.net_arch)
    except ValueError:
        hidden = []
    need(bool(hidden) and min(hidden) >= 1, "net_arch", "positive layer sizes such as '256,256'")
    need(cfg.activation in ("relu", "tanh"), "activation", "choose 'relu' or 'tanh'")
    need(cfg.learning_rate > 0, "learning_rate", "must be positive")
    need(cfg.n_steps >= 1, "n_steps", "must be at least 1")
    need(cfg.n_steps * cfg.num_envs >= 2, "n_steps", "n_steps x num_envs must be at least 2")
    need(cfg.batch_size >= 2, "batch_size", "must be at least 2")
    need(cfg.n_epochs >= 1, "n_epochs", "must be at least 1")
    need(0 < cfg.gamma <= 1, "gamma", "must be in (0, 1]")
    need(0 <= cfg.gae_lambda <= 1, "gae_lambda", "must be in [0, 1]")
    need(cfg.clip_range > 0, "clip_range", "must be positive")
    need(cfg.ent_coef >= 0, "ent_coef", "must be at least 0")
    need(cfg.vf_coef >= 0, "vf_coef", "must be at least 0")
    need(cfg.max_grad_norm > 0, "max_grad_norm", "must be positive")
    need(cfg.target_kl >= 0, "target_kl", "must be at least 0 (0: no limit)")
    need(cfg.snapshot_every >= 1, "snapshot_every", "must be at least 1")
    need(cfg.checkpoint_every >= 1, "checkpoint_every", "must be at least 1")
    need(cfg.eval_every >= 0, "eval_every", "must be at least 0 (0: never)")
    need(cfg.eval_deals >= 1, "eval_deals", "must be at least 1")
    need(cfg.bc_samples >= 1, "bc_samples", "must be at least 1")
    need(cfg.bc_epochs >= 1, "bc_epochs", "must be at least 1")
    need(cfg.bc_learning_rate > 0, "bc_learning_rate", "must be positive")
    need(cfg.kl_coef >= 0, "kl_coef", "must be at least 0")
    need(cfg.kl_anneal_steps >= 1, "kl_anneal_steps", "must be at least 1")
    need(cfg.kl_coef == 0 or bool(cfg.init_policy), "kl_coef", "needs --init-policy (the clone)")
    need(
        cfg.kl_coef == 0 or cfg.ent_coef > 0,
        "kl_coef",
        "needs --ent-coef > 0 (agents.train.kl_ppo)",
    )
    if cfg.init_policy:
        check_init_policy(cfg)
    # Every bot and model the run will build, built once now (a typo fails here, not hours in).
    names = parse_names(cfg.opponents, "--opponents")
    bots = [("opponents", n) for n in names if n != "self"]
    bots.append(("eval_opponent", cfg.eval_opponent))
    if cfg.bc_teacher:
        bots.append(("bc_teacher", cfg.bc_teacher))
    for name, bot in bots:
        try:
            check_table(make_agent(bot, 0, game=cfg.game), cfg.players)
        except ValueError as exc:
            raise ValueError(f"{_flag(name)} {bot!r}: {exc}") from None
    if cfg.run_name and not cfg.resume:
        run_dir = Path(cfg.runs_dir) / cfg.run_name
        need(not (run_dir / "checkpoints").exists(), "run_name",
             f"{run_dir} already holds a run; continue it with --resume {run_dir}")  # fmt: skip
    check_writable_dir(cfg.resume or cfg.runs_dir, "--resume" if cfg.resume else "--runs-dir")


def check_writable_dir(path: str, flag: str) -> None:
    """ValueError (one line) unless ``path`` is, or can be created as, a directory this process
    can write in: its nearest existing ancestor must be a directory that takes a probe file."""
    probe = Path(path).absolute()
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        where = "is not a directory" if probe == Path(path).absolute() else f"{probe} is a file"
        raise ValueError(f"{flag} {path!r}: {where}")
    try:
        with tempfile.TemporaryFile(dir=probe):
            pass
    except OSError as exc:
        raise ValueError(
            f"{flag} {path!r}: cannot write in {probe} ({exc.strerror or exc})"
        ) from None


def side_options(cfg: Config) -> dict[str, Any]:
    """``--game-options`` of a side game as a dict (``hands=1,max_hands=3``)."""
    from agents.games import game_spec

    pairs = [p for p in cfg.game_options.split(",") if p.strip()]
    return game_spec(cfg.game).parse_options(pairs) if cfg.game != "contract" else {}


def validate_side(cfg: Config) -> None:
    """The checks of a side game (``--game fifteen|knock``): its table and options."""
    from agents.games import game_spec

    if cfg.init_policy:
        raise ValueError(f"--init-policy {cfg.init_policy!r}: the contract game's only")
    try:
        game_spec(cfg.game).check_options(cfg.players, side_options(cfg))
    except ValueError as exc:
        raise ValueError(f"--game {cfg.game} --players {cfg.players} "
                         f"--game-options {cfg.game_options!r}: {exc}") from None  # fmt: skip


def check_init_policy(cfg: Config) -> None:
    """ValueError unless --init-policy is a model of this run's observation and table."""
    from agents.bots.ppo_agent import ENVS, check_env, read_zip_metadata

    path = cfg.init_policy
    if not os.path.isfile(path):
        raise ValueError(f"--init-policy {path!r}: no such file")
    try:
        meta = read_zip_metadata(path) or {}
    except (OSError, zipfile.BadZipFile) as exc:
        raise ValueError(f"--init-policy {path!r}: not a model zip ({exc})") from None
    try:
        check_env(meta, f"--init-policy {path!r}", cfg.players, ENVS[int(cfg.features)])
    except ValueError as exc:
        raise ValueError(f"{exc} (--features / --no-features pick the observation)") from None


def run_metadata(cfg: dict[str, Any]) -> dict[str, Any]:
    """What this run's models are trained for (``features``: ``continental_v1``, else v0)."""
    if cfg.get("game", "contract") != "contract":
        from agents.train.side_single_agent import side_metadata

        return side_metadata(cfg["game"], cfg["players"], side_options(Config(**cfg)))
    version = 1 if cfg.get("features") else 0
    return model_metadata(cfg["players"], cfg["preset"], parse_rounds(cfg["rounds"]), version)


def parse_ints(text: str) -> list[int]:
    """``'256,256'`` -> [256, 256]."""
    return [int(x) for x in text.split(",") if x]


# ---------------------------------------------------------------------------------------------
# Checkpoints: a model zip plus a JSON of the counters, the config and the RNG states, each
# written to a temporary file in the same directory and moved into place with os.replace, so a
# run killed mid-write keeps its previous checkpoint. Before ``last`` is replaced, the one it
# replaces becomes ``prev``: a latest checkpoint that cannot be read (a disk error, a partial
# copy) costs one checkpoint interval, not the run.
# ---------------------------------------------------------------------------------------------
CHECKPOINT_FILES = (".json", ".zip", ".rng.pkl")  # the JSON first: it marks a whole checkpoint
RESUME_ORDER = ("last", "prev")
SB3_MEMBERS = {"data", "policy.pth"}  # what MaskablePPO.load needs in a checkpoint's zip


def save_checkpoint(
    model: MaskablePPO,
    directory: Path,
    tag: str,
    extra: dict[str, Any],
    keep_previous: bool = False,
) -> Path:
    """Write ``tag.zip``, ``tag.json`` and ``tag.rng.pkl`` atomically; returns the zip's path.

    With ``keep_previous`` the files being replaced are kept as ``prev.*`` first.
    """
    directory.mkdir(parents=True, exist_ok=True)
    cfg = extra["config"]
    pid = os.getpid()
    tmp_zip = directory / f".{tag}.{pid}.tmp.zip"
    tmp_rng = directory / f".{tag}.rng.{pid}.tmp"
    tmp_json = directory / f".{tag}.{pid}.tmp.json"
    try:
        model.save(tmp_zip)
        write_zip_metadata(tmp_zip, run_metadata(cfg))
        rng = {
            "python": random.getstate(),
            "numpy": np.random.get_state(),
            "torch": torch.get_rng_state(),
        }
        tmp_rng.write_bytes(pickle.dumps(rng))
        meta = {"num_timesteps": int(model.num_timesteps), "saved_at": time.time(), **extra}
        tmp_json.write_text(json.dumps(meta, indent=2))
    except BaseException:
        # A failed write (a full disk, a signal) leaves the previous checkpoint as it was and no
        # partial temporary file beside it.
        for tmp in (tmp_zip, tmp_rng, tmp_json):
            tmp.unlink(missing_ok=True)
        raise
    if keep_previous and (directory / f"{tag}.json").exists():
        for suffix in CHECKPOINT_FILES:
            if (directory / f"{tag}{suffix}").exists():
                os.replace(directory / f"{tag}{suffix}", directory / f"prev{suffix}")
    os.replace(tmp_zip, directory / f"{tag}.zip")
    os.replace(tmp_rng, directory / f"{tag}.rng.pkl")
    os.replace(tmp_json, directory / f"{tag}.json")
    return directory / f"{tag}.zip"


def find_checkpoint(run_dir: Path) -> dict[str, Any]:
    """The newest readable checkpoint of a run: ``{"tag", "meta", "skipped"}``.

    ValueError (one line) if the directory or every checkpoint is missing or unreadable.
    """
    if not run_dir.is_dir():
        raise ValueError(f"--resume {run_dir}: no such run directory")
    ckpt_dir = run_dir / "checkpoints"
    problems = []
    for tag in RESUME_ORDER:
        try:
            meta = json.loads((ckpt_dir / f"{tag}.json").read_text())
            if not isinstance(meta.get("config"), dict) or "num_timesteps" not in meta:
                raise ValueError("incomplete")
            with zipfile.ZipFile(ckpt_dir / f"{tag}.zip") as archive:
                bad = archive.testzip()
                if bad is not None:
                    raise ValueError(f"damaged member {bad}")
                missing = sorted(SB3_MEMBERS - set(archive.namelist()))
                if missing:
                    raise ValueError(f"not an SB3 model, no {', '.join(missing)}")
                json.loads(archive.read("data"))
            read_rng(ckpt_dir, tag)
        except FileNotFoundError:
            problems.append(f"no {tag} checkpoint")
            continue
        except (ValueError, OSError, zipfile.BadZipFile, pickle.UnpicklingError, EOFError) as exc:
            problems.append(f"{tag} checkpoint unreadable ({str(exc).splitlines()[0]})")
            continue
        return {"tag": tag, "meta": meta, "skipped": problems}
    raise ValueError(f"--resume {run_dir}: nothing to resume from: {'; '.join(problems)}")


def read_rng(directory: Path, tag: str) -> dict[str, Any] | None:
    """The RNG states saved with a checkpoint (None for a run from before they were saved);
    ValueError when the file is there but is not what ``save_checkpoint`` writes."""
    path = directory / f"{tag}.rng.pkl"
    if not path.exists():
        return None
    try:
        rng = pickle.loads(path.read_bytes())  # our own file, written by save_checkpoint
    except Exception as exc:  # a truncated or overwritten file: unpickling fails many ways
        raise ValueError(f"{path.name} unreadable ({type(exc).__name__})") from None
    if not isinstance(rng, dict) or not {"python", "numpy", "torch"} <= set(rng):
        raise ValueError(f"{path.name} holds no RNG states")
    return rng


def restore_rng(directory: Path, tag: str) -> None:
    """Restore the python, numpy and torch RNG states saved with a checkpoint."""
    rng = read_rng(directory, tag)
    if rng is not None:
        random.setstate(rng["python"])
        np.random.set_state(rng["numpy"])
        torch.set_rng_state(rng["torch"])


# ---------------------------------------------------------------------------------------------
# Evaluation on duplicate deals, through the project's harness (agents.evaluate.harness): every deal is
# played once with the learner in each seat and the bot in all the others, so the luck of the
# cards cancels out of the comparison.
# ---------------------------------------------------------------------------------------------
def evaluate_policy(
    policy_path: Path,
    opponent: str,
    players: int,
    preset: str,
    deals: int,
    seed: int,
    game: str = "contract",
    options: dict[str, Any] | None = None,
) -> dict[str, float]:
    """Mean points per game of the policy (a ``.npz``, v0 or v1: it records which) and of
    ``opponent``, and their difference."""
    from agents.evaluate.harness import evaluate

    name = f"ppo:{policy_path}"
    report = evaluate([name, opponent], players=players, games=deals, seed=seed, preset=preset,
                      game=game, options=options)  # fmt: skip
    paired = report["paired"][opponent]
    return {
        "points": report["agents"][name]["mean_points"],
        "opponent_points": report["agents"][opponent]["mean_points"],
        "diff": paired["mean_diff"],
        "diff_ci95_low": paired["ci95"][0],
        "diff_ci95_high": paired["ci95"][1],
        "games": report["config"]["games"],
    }


# ---------------------------------------------------------------------------------------------
# Warm start by behaviour cloning (optional, --bc-teacher). PPO from scratch has to discover
# meld-building from the round-end reward alone; a teacher bot's decisions (every seat of
# teacher-only tables) give the policy that prior in a few minutes, and the value head learns
# the round's relative reward from the same games. PPO then improves on the teacher.
# ---------------------------------------------------------------------------------------------
def teacher_decisions(task: tuple[str, int, str, int, int, int]) -> dict[str, np.ndarray]:
    """Observations (of the observation version), legal actions, the teacher's actions and
    round rewards from one game."""
    from agents import make_agent
    from agents.bots.base import PlayerView
    from continental_env.aec import encode_observation, observation_layout
    from continental_env.game import Game

    teacher, players, preset, game_seed, agent_seed, version = task
    game = Game.new(preset, players, seed=game_seed)
    bots = [make_agent(teacher, seed=agent_seed + s) for s in range(players)]
    layout = observation_layout(players, version)
    obs, legal, actions, seats, rounds = [], [], [], [], []
    while not game.is_over:
        seat = game.actor
        choices = game.legal_actions()
        action = bots[seat].act(PlayerView(game, seat))
        if len(choices) > 1:  # forced moves teach nothing
            obs.append(encode_observation(game, seat, layout))
            legal.append(np.array(choices, dtype=np.int16))
            actions.append(action)
            seats.append(seat)
            rounds.append(len(game.state.round_history))
        game.apply(action)
    returns = []
    for seat, r in zip(seats, rounds, strict=True):
        returns.append(relative_reward(game.state.round_history[r]["points"], seat))
    return {
        "obs": np.array(obs, dtype=np.float32),
        "legal": legal,
        "actions": np.array(actions, dtype=np.int64),
        "returns": np.array(returns, dtype=np.float32),
    }


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the training process's to handle
    # A forked worker inherits the training process's SIGTERM handler, which only asks for a
    # clean stop; the pool ends its workers with SIGTERM, so they must die of it (a worker that
    # caught it kept waiting for tasks and the pool's exit waited for it forever).
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def save_bc_data(
    path: str, obs: np.ndarray, legal: list, actions: np.ndarray, returns: np.ndarray
) -> None:
    """A side game's teacher decisions as one .npz (legal actions flattened with offsets)."""
    lengths = np.array([len(row) for row in legal], dtype=np.int64)
    flat = np.concatenate(legal).astype(np.int16) if legal else np.zeros(0, np.int16)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    tmp = f"{path}.tmp.npz"
    np.savez_compressed(tmp, obs=obs, legal=flat, lengths=lengths, actions=actions, returns=returns)
    os.replace(tmp, path)


def load_bc_data(path: str) -> dict[str, Any]:
    """What ``save_bc_data`` wrote, in ``teacher_decisions``' shape."""
    with np.load(path) as data:
        cuts = np.cumsum(data["lengths"])[:-1]
        return {
            "obs": data["obs"],
            "legal": np.split(data["legal"], cuts) if len(data["lengths"]) else [],
            "actions": data["actions"],
            "returns": data["returns"],
        }


def suit_relabellings(cfg: Config) -> list[tuple[Any, Any, Any]]:
    """The 24 suit relabellings of a side game's decisions as torch index tensors."""
    from itertools import permutations

    from agents.train.side_single_agent import suit_permutation

    out = []
    for perm in permutations(range(4)):
        obs_src, action_src, action_dst = suit_permutation(cfg.game, cfg.players, perm)
        out.append((torch.as_tensor(obs_src), action_src, torch.as_tensor(action_dst)))
    return out


def heldout_accuracy(
    policy: Any, obs: Any, actions: Any, legal: list, start: int, n_actions: int
) -> float:
    """Share of the decisions from ``start`` on where the policy's top legal action is the teacher's."""
    hits = 0
    with torch.no_grad():
        for lo in range(start, len(legal), 4096):
            hi = min(len(legal), lo + 4096)
            masks = np.zeros((hi - lo, n_actions), dtype=bool)
            for row, i in enumerate(range(lo, hi)):
                masks[row, legal[i]] = True
            dist = policy.get_distribution(obs[lo:hi], action_masks=masks)
            top = dist.distribution.probs.argmax(dim=1)
            hits += int((top == actions[lo:hi]).sum())
    return hits / max(1, len(legal) - start)


def behaviour_cloning(model: MaskablePPO, cfg: Config, writer_dir: Path, stop: StopRequest) -> None:
    """Fit the policy to the teacher's actions and the value head to the round rewards.

    A stop request (SIGTERM, Ctrl-C) ends the collection or the fitting early.
    """
    import multiprocessing as mp

    from torch.utils.tensorboard import SummaryWriter

    from agents.train.cloning import clone_step, legal_masks

    t0 = time.time()
    parts: list[dict[str, np.ndarray]] = []
    n = 0
    game = 0
    worker: Any = teacher_decisions
    if cfg.game != "contract":
        from agents.train.side_single_agent import teacher_decisions as side_teacher

        worker = partial(side_teacher, cfg.game, side_options(cfg))
    saved = cfg.game != "contract" and cfg.bc_data and os.path.exists(cfg.bc_data)
    if saved:
        parts.append(load_bc_data(cfg.bc_data))
        n = len(parts[0]["actions"])
    with mp.get_context("fork").Pool(cfg.num_envs, initializer=_ignore_sigint) as pool:
        while n < cfg.bc_samples and not stop.requested and not saved:
            tasks = [
                (
                    cfg.bc_teacher,
                    cfg.players,
                    cfg.preset,
                    cfg.seed * 7919 + game + i,
                    game + i,
                    int(cfg.features),
                )
                for i in range(64)
            ]
            game += len(tasks)
            for part in pool.imap_unordered(worker, tasks):
                parts.append(part)
                n += len(part["actions"])
    obs = torch.as_tensor(np.concatenate([p["obs"] for p in parts]))
    actions = torch.as_tensor(np.concatenate([p["actions"] for p in parts]))
    returns = torch.as_tensor(np.concatenate([p["returns"] for p in parts]))
    legal = [row for p in parts for row in p["legal"]]
    if saved:
        print(f"warm start: {len(legal)} decisions of {cfg.bc_teacher} read from {cfg.bc_data}",
              flush=True)  # fmt: skip
    else:
        print(f"warm start: {len(legal)} decisions of {cfg.bc_teacher} in {game} games, "
              f"{time.time() - t0:.0f} s", flush=True)  # fmt: skip
        if cfg.game != "contract" and cfg.bc_data:
            save_bc_data(cfg.bc_data, obs.numpy(), legal, actions.numpy(), returns.numpy())

    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.bc_learning_rate)
    writer = SummaryWriter(str(writer_dir / "bc"))
    n_actions = model.action_space.n
    batch = 1024
    step = 0
    # Side games: the last 5 % of the decisions (whole games, in collection order) are held out
    # to measure how often the clone's top action is the teacher's.
    train_n = len(legal) - (len(legal) // 20 if cfg.game != "contract" else 0)
    relabel = suit_relabellings(cfg) if cfg.bc_augment_suits else None
    rng = np.random.default_rng(cfg.seed)
    for epoch in range(cfg.bc_epochs):
        if stop.requested or not legal:
            break
        order = torch.randperm(train_n)
        for start in range(0, train_n, batch):
            idx = order[start : start + batch]
            masks = legal_masks([legal[i] for i in idx.tolist()], n_actions)
            batch_obs, batch_actions = obs[idx], actions[idx]
            if relabel is not None:
                obs_src, action_src, action_dst = relabel[rng.integers(len(relabel))]
                batch_obs, masks = batch_obs[:, obs_src], masks[:, action_src]
                batch_actions = action_dst[batch_actions]
            out = clone_step(policy, optimizer, batch_obs, batch_actions, returns[idx], masks,
                             vf_coef=cfg.vf_coef, max_grad_norm=cfg.max_grad_norm)  # fmt: skip
            policy_loss, value_loss = out["policy_loss"], out["value_loss"]
            if step % 50 == 0:
                accuracy = (out["log_prob"] > math.log(0.5)).float().mean().item()
                writer.add_scalar("bc/policy_loss", policy_loss.item(), step)
                writer.add_scalar("bc/value_loss", value_loss.item(), step)
                writer.add_scalar("bc/teacher_prob_over_half", accuracy, step)
            step += 1
        held = ""
        if train_n < len(legal):
            top = heldout_accuracy(policy, obs, actions, legal, train_n, n_actions)
            writer.add_scalar("bc/heldout_top_action_accuracy", top, step)
            held = f", held-out top-action accuracy {top:.3f}"
        print(f"warm start epoch {epoch + 1}: policy loss {policy_loss.item():.3f}, "
              f"value loss {value_loss.item():.3f}{held}", flush=True)  # fmt: skip
    writer.close()
    print(f"warm start done in {time.time() - t0:.0f} s", flush=True)


# ---------------------------------------------------------------------------------------------
# The callback: progress bar, throughput, snapshots for self-play, checkpoints, evaluation.
# ---------------------------------------------------------------------------------------------
class TrainingCallback(BaseCallback):
    """Periodic work during ``learn``: everything keyed on the global step counter."""

    def __init__(self, cfg: Config, run_dir: Path, best: float | None, stop: StopRequest) -> None:
        super().__init__()
        self.cfg = cfg
        self.run_dir = run_dir
        self.ckpt_dir = run_dir / "checkpoints"
        self.snap_dir = run_dir / "snapshots"
        self.best = best
        self.bar: tqdm | None = None
        self.stop = stop
        self.saved_step = -1  # the step of the newest "last" checkpoint written by this run

    def _due(self, every: int) -> bool:
        n = self.training_env.num_envs
        return every > 0 and self.num_timesteps // every != (self.num_timesteps - n) // every

    def _on_training_start(self) -> None:
        self.t0 = time.time()
        self.steps0 = self.num_timesteps
        if self.cfg.progress:
            self.bar = tqdm(
                total=self.cfg.total_timesteps,
                initial=self.num_timesteps,
                unit="step",
                dynamic_ncols=True,
                mininterval=2.0,
            )

    def _on_step(self) -> bool:
        n = self.training_env.num_envs
        if self.bar is not None:
            self.bar.update(n)
        if self._due(self.cfg.snapshot_every) and "self" in self.cfg.opponents.split(","):
            self.snapshot()
        if self._due(self.cfg.eval_every):
            self.evaluate()
        if self._due(self.cfg.checkpoint_every):
            self.checkpoint("last")
        return not self.stop.requested

    def _on_rollout_end(self) -> None:
        elapsed = time.time() - self.t0
        sps = (self.num_timesteps - self.steps0) / max(elapsed, 1e-9)
        self.logger.record("charts/steps_per_second", sps)

    def _on_training_end(self) -> None:
        self.checkpoint("last")
        if self.bar is not None:
            self.bar.close()

    def model_meta(self) -> dict[str, Any]:
        return run_metadata(dataclasses.asdict(self.cfg))

    def extra(self) -> dict[str, Any]:
        return {"config": dataclasses.asdict(self.cfg), "best_eval_diff": self.best}

    def checkpoint(self, tag: str) -> None:
        if tag == "last" and self.saved_step == self.num_timesteps:
            return  # already written at this step (the end of training right after a periodic one)
        save_checkpoint(self.model, self.ckpt_dir, tag, self.extra(), keep_previous=tag == "last")
        if tag == "last":
            self.saved_step = self.num_timesteps

    def snapshot(self) -> None:
        from agents.bots.ppo_agent import NumpyPolicy

        self.snap_dir.mkdir(parents=True, exist_ok=True)
        path = self.snap_dir / f"step_{self.num_timesteps:010d}.npz"
        NumpyPolicy.from_sb3(self.model.policy, meta=self.model_meta()).save_npz(str(path))
        self.training_env.env_method("add_snapshot", str(path))

    def evaluate(self) -> None:
        from agents.bots.ppo_agent import NumpyPolicy

        cfg = self.cfg
        path = self.run_dir / "eval_policy.npz"
        NumpyPolicy.from_sb3(self.model.policy, meta=self.model_meta()).save_npz(str(path))
        t = time.time()
        result = evaluate_policy(path, cfg.eval_opponent, cfg.players, cfg.preset, cfg.eval_deals,
                                 seed=10_000, game=cfg.game, options=side_options(cfg))  # fmt: skip
        for key in ("points", "opponent_points", "diff"):
            self.logger.record(f"eval/{key}_vs_{cfg.eval_opponent}", result[key])
        self.logger.record("eval/seconds", time.time() - t)
        msg = (
            f"[eval @ {self.num_timesteps}] vs {cfg.eval_opponent}: "
            f"{result['points']:.1f} vs {result['opponent_points']:.1f} "
            f"{'points' if cfg.game == 'contract' else 'chips'}/game "
            f"(diff {result['diff']:+.1f} [{result['diff_ci95_low']:.1f}, "
            f"{result['diff_ci95_high']:.1f}], {result['games']} games)"
        )
        (tqdm.write if self.bar is not None else print)(msg)
        sign = -1 if cfg.game == "contract" else 1  # points: lower is better; chips: higher
        if self.best is None or sign * result["diff"] > sign * self.best:
            self.best = result["diff"]
            save_checkpoint(self.model, self.ckpt_dir, "best", {**self.extra(), "eval": result})


# ---------------------------------------------------------------------------------------------
# Main: config (fresh or resumed), seeding, environments, model, learn.
# ---------------------------------------------------------------------------------------------
class MasksFromInfo(VecEnvWrapper):
    """Serves ``action_masks`` from the masks the environments return in their infos.

    MaskablePPO asks every environment for its mask after each step; through SubprocVecEnv that
    is a second pipe round-trip per step. The environments (``mask_in_info=True``) already send
    the next state's mask with the step (or with the reset after an episode's end).
    """

    def __init__(self, venv: VecEnv) -> None:
        super().__init__(venv)
        self.masks: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        obs = self.venv.reset()
        self.masks = np.stack([info["action_mask"] for info in self.venv.reset_infos])
        return obs

    def step_wait(self) -> tuple:
        obs, rewards, dones, infos = self.venv.step_wait()
        resets = self.venv.reset_infos
        self.masks = np.stack(
            [
                (resets[i] if done else info)["action_mask"]
                for i, (done, info) in enumerate(zip(dones, infos, strict=True))
            ]
        )
        return obs, rewards, dones, infos

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list:
        if method_name == "action_masks" and indices is None and self.masks is not None:
            return list(self.masks)
        return self.venv.env_method(method_name, *args, indices=indices, **kwargs)


def make_vec_env(cfg: Config, base_seed: int) -> VecMonitor:
    """``num_envs`` single-learner environments, each seeded ``base_seed + rank``."""
    subproc = cfg.vec_env == "subproc"
    factories = [
        partial(
            make_worker_env if subproc else make_env,
            num_players=cfg.players,
            preset=cfg.preset,
            rounds=parse_rounds(cfg.rounds),
            opponents=parse_names(cfg.opponents, "--opponents"),
            round_episodes=cfg.round_episodes,
            seed=base_seed + rank,
            mask_in_info=True,
            version=1 if cfg.features else 0,
        )
        for rank in range(cfg.num_envs)
    ]
    if cfg.game != "contract":  # a side game's learner seat instead
        from agents.train import side_single_agent

        make = side_single_agent.make_worker_env if subproc else side_single_agent.make_env
        factories = [
            partial(
                make,
                game=cfg.game,
                num_players=cfg.players,
                seed=base_seed + rank,
                opponents=parse_names(cfg.opponents, "--opponents"),
                mask_in_info=True,
                **side_options(cfg),
            )
            for rank in range(cfg.num_envs)
        ]
    if subproc:
        return VecMonitor(MasksFromInfo(SubprocVecEnv(factories, start_method="forkserver")))
    return VecMonitor(MasksFromInfo(DummyVecEnv(factories)))


class StopRequest:
    """SIGTERM and SIGINT (Ctrl-C) ask training to stop: the current step finishes, the final
    checkpoint is written and the process exits with status 0. The environment workers ignore
    SIGINT (a terminal sends it to them too), so they are still there to be closed."""

    def __init__(self) -> None:
        self.requested = False
        self.signal: int | None = None

    def install(self) -> None:
        self._previous = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
        for sig in self._previous:
            signal.signal(sig, self._handle)

    def uninstall(self) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)

    def _handle(self, signum: int, frame: Any) -> None:
        if not self.requested:
            print(f"\n{signal.Signals(signum).name}: stopping after this step, saving", flush=True)
        self.requested = True
        self.signal = signum


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
    activation = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[cfg.activation]
    hidden = parse_ints(cfg.net_arch)
    ppo_kwargs = {
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
    if resume_dir is not None:
        ckpt_dir = resume_dir / "checkpoints"
        tag = saved["tag"]
        model = MaskablePPO.load(
            ckpt_dir / f"{tag}.zip", env=venv, device="cpu", custom_objects=ppo_kwargs
        )
        model.tensorboard_log = str(run_dir)
        restore_rng(ckpt_dir, tag)
        for snap in sorted((run_dir / "snapshots").glob("*.npz"))[-5:]:
            venv.env_method("add_snapshot", str(snap))
        print(f"resuming {run_dir} at step {model.num_timesteps}", flush=True)
    else:
        # MaskablePPO's MlpPolicy with a lean rollout step (``agents.train.kl_ppo.LeanPolicy``).
        from agents.train.kl_ppo import KLPolicy, LeanPolicy

        policy_class: Any = KLPolicy if cfg.kl_coef > 0 else LeanPolicy
        model = MaskablePPO(
            policy_class,
            venv,
            policy_kwargs={
                "net_arch": {"pi": hidden, "vf": hidden},
                "activation_fn": activation,
            },
            tensorboard_log=str(run_dir),
            seed=cfg.seed,
            device="cpu",
            verbose=0,
            **ppo_kwargs,
        )
    if cfg.init_policy:
        init = MaskablePPO.load(cfg.init_policy, device="cpu")
        if resume_dir is None:
            try:
                model.policy.load_state_dict(init.policy.state_dict())
            except RuntimeError as exc:
                raise ValueError(
                    f"--init-policy {cfg.init_policy}: another network ({str(exc).splitlines()[0]})"
                ) from None
        if cfg.kl_coef > 0:
            model.policy.set_reference(init.policy)
    if cfg.bc_teacher and resume_dir is None:
        behaviour_cloning(model, cfg, run_dir, stop)
        save_checkpoint(
            model, run_dir / "checkpoints", "warm_start", {"config": dataclasses.asdict(cfg)}
        )
    (run_dir / "config.json").write_text(json.dumps(dataclasses.asdict(cfg), indent=2))
    print(f"run {run_dir}: {json.dumps(dataclasses.asdict(cfg))}", flush=True)

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
    venv.close()
    if stop.requested:
        print(
            f"stopped at step {model.num_timesteps}; continue with --resume {run_dir}", flush=True
        )
    else:
        print(finished_message(cfg, run_dir, model.num_timesteps), flush=True)
    return model


def finished_message(cfg: Config, run_dir: Path, steps: int) -> str:
    """Where a finished run's model is and the command that evaluates it."""
    model = run_dir / "checkpoints" / "last.zip"
    game = "" if cfg.game == "contract" else f" --game {cfg.game}"
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
