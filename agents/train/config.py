"""The configuration of ``continental train``: every option with its help text (``Config``), the
command-line parser built from it, and the checks that every flag passes before a run starts."""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import tempfile
import zipfile
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from agents import make_agent
from agents.bots.ppo_agent import check_table, model_metadata
from agents.cli import ArgumentParser, parse_names, parse_rounds
from agents.games import DEFAULT_GAME, game_names, game_spec
from continental_env.rules import PRESETS, resolve_rules

DESCRIPTION = "Train a MaskablePPO agent for Continental (sb3-contrib)."


# ---------------------------------------------------------------------------------------------
# Configuration: every option with its help text (``python train.py --help``).
# ---------------------------------------------------------------------------------------------
def opt(default: Any, help: str) -> Any:
    """A config field with its help text."""
    return field(default=default, metadata={"help": help})


@dataclass
class Config:
    exp_name: str = opt("ppo_continental", "prefix of the run name")
    game: str = opt(DEFAULT_GAME, "game: contract, fifteen or knock (RULES.md Parts 1-3)")
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
    vec_env: str = opt(
        "subproc",
        "'subproc' (one process per env), 'dummy' (in process) or 'batch' (the contract game's "
        "compiled batch core: num_envs tables in one process, bots decided in C)",
    )
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
    side_features: str = opt(
        "",
        "side games: observe fifteen_v1 / knock_v1 (the v0 vector followed by features derived "
        "from the seat's view with the strong bot's hand valuation; agents.side_features); "
        "--side-features v2: knock_v2 (the retuned strong's weights and the weight-free parts); "
        "--side-features alone means v1, --no-side-features the v0 observation",
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

    def __post_init__(self) -> None:
        # A run saved before knock_v2 holds True / False here: the same observation as v1 / v0.
        from agents.side_features import feature_version

        version = feature_version(self.side_features)
        self.side_features = f"v{version}" if version else ""


def build_parser() -> ArgumentParser:
    """One flag per ``Config`` field, with its help text; absent flags stay absent."""
    parser = ArgumentParser(prog="continental train", description=DESCRIPTION)
    for f in dataclasses.fields(Config):
        flag = "--" + f.name.replace("_", "-")
        if f.name == "side_features":
            parser.add_argument(
                flag,
                nargs="?",
                const="v1",
                type=_side_version,
                default=argparse.SUPPRESS,
                help=f"{f.metadata['help']} (default: v0)",
            )
            parser.add_argument(
                "--no-side-features", dest=f.name, action="store_const", const="",
                default=argparse.SUPPRESS, help="side games: the v0 observation",
            )  # fmt: skip
        elif f.type in ("bool", bool):
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


def _side_version(text: str) -> str:
    """``--side-features`` value: ``v1`` or ``v2`` (``v0``: none), as the saved config holds it."""
    from agents.side_features import feature_version

    try:
        version = feature_version(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: choose v0, v1 or v2") from None
    return f"v{version}" if version else ""


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


# The flags that apply to one kind of game only: games played under a rules preset
# (``GameSpec.rule_presets``: the contract game) and games of key=value options.
VEC_ENVS = ("subproc", "dummy", "batch")
RULES_FLAGS = ("preset", "rounds", "round_episodes", "features")
OPTIONS_FLAGS = ("game_options", "side_features", "bc_data", "bc_augment_suits")


def rule_presets(cfg: Config) -> bool:
    """Whether the run's game is played under a rules preset (``GameSpec.rule_presets``)."""
    return game_spec(cfg.game).rule_presets


def check_flags_apply(cfg: Config, given: set[str] | frozenset[str]) -> None:
    """ValueError naming the first flag given on the command line that the game does not take
    (``--game knock --preset continental_us`` would otherwise be silently ignored)."""
    _check_game(cfg)
    foreign = OPTIONS_FLAGS if rule_presets(cfg) else RULES_FLAGS
    takes = "--game-options" if foreign is RULES_FLAGS else "--preset and --rounds"
    for name in foreign:
        if name in given:
            raise ValueError(
                f"{_flag(name)} {getattr(cfg, name)!r}: does not apply to --game {cfg.game} "
                f"(its game takes {takes})"
            )


def validate(cfg: Config, given: set[str] | frozenset[str] = frozenset()) -> None:
    """ValueError naming the first bad flag; builds every bot and model the run will need.
    ``given``: the flags given on the command line, refused where the game does not take them."""
    check_flags_apply(cfg, given)
    _check_names(cfg)
    _check_rules(cfg)
    _check_ppo(cfg)
    _check_schedule(cfg)
    if cfg.init_policy:
        check_init_policy(cfg)
    _check_bots(cfg)
    if cfg.vec_env == "batch":
        _check_batch(cfg)
    if cfg.run_name and not cfg.resume:
        run_dir = Path(cfg.runs_dir) / cfg.run_name
        _need(cfg, not (run_dir / "checkpoints").exists(), "run_name",
              f"{run_dir} already holds a run; continue it with --resume {run_dir}")  # fmt: skip
    check_writable_dir(cfg.resume or cfg.runs_dir, "--resume" if cfg.resume else "--runs-dir")


def _need(cfg: Config, ok: bool, name: str, why: str) -> None:
    """ValueError naming the flag ``name`` and its value unless ``ok``."""
    if not ok:
        raise ValueError(f"{_flag(name)} {getattr(cfg, name)!r}: {why}")


def _check_names(cfg: Config) -> None:
    """Finite numbers, the run's names, the seed and the game (with a side game's table)."""
    need = partial(_need, cfg)
    for name in ("learning_rate", "gamma", "gae_lambda", "clip_range", "ent_coef", "vf_coef",
                 "max_grad_norm", "target_kl", "bc_learning_rate", "kl_coef"):  # fmt: skip
        need(math.isfinite(getattr(cfg, name)), name, "must be a finite number")
    need(cfg.exp_name != "" and os.sep not in cfg.exp_name, "exp_name", "a non-empty name, no /")
    need(os.sep not in cfg.run_name and cfg.run_name not in (".", ".."), "run_name", "a name, no /")
    need(0 <= cfg.seed < 2**32, "seed", "must be in 0 .. 2**32 - 1")
    _check_game(cfg)
    if not rule_presets(cfg):
        validate_side(cfg)


def _check_game(cfg: Config) -> None:
    _need(cfg, cfg.game in game_names(), "game", f"choose {', '.join(game_names())}")


def _check_rules(cfg: Config) -> None:
    """The preset, the rounds and (the contract game) the table size."""
    _need(cfg, cfg.preset in PRESETS, "preset", f"choose one of {', '.join(PRESETS)}")
    rules = resolve_rules(cfg.preset)
    rounds = parse_rounds(cfg.rounds)  # its message names the flag
    try:
        if rounds is not None:
            rules = rules.with_rounds(tuple(rounds))
    except ValueError as exc:
        raise ValueError(f"--rounds {cfg.rounds!r}: {exc}") from None
    try:
        if rule_presets(cfg):
            rules.check_players(cfg.players)
    except ValueError as exc:
        raise ValueError(f"--players {cfg.players}: {exc}") from None


def _check_ppo(cfg: Config) -> None:
    """The environments, the network and PPO's hyperparameters."""
    need = partial(_need, cfg)
    need(cfg.total_timesteps >= 1, "total_timesteps", "must be at least 1")
    need(cfg.num_envs >= 1, "num_envs", "must be at least 1")
    need(cfg.vec_env in VEC_ENVS, "vec_env", f"choose one of {', '.join(VEC_ENVS)}")
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


def _check_schedule(cfg: Config) -> None:
    """Snapshots, checkpoints, evaluation, the warm start and the KL penalty."""
    need = partial(_need, cfg)
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


def _check_bots(cfg: Config) -> None:
    """Every bot the run will build, built once now (a typo fails here, not hours in)."""
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


def batch_opponent(name: str) -> str:
    """An opponent of ``--vec-env batch``: ``random``, ``self``, a bot the compiled core decides
    (``strong`` plays ``strong@v1``) or ``ppo:PATH`` (loaded by ``batch_vec_env``); ValueError
    otherwise."""
    from agents.registry import versioned_name
    from continental_env.batch import BOT_NAMES

    bot = versioned_name(name)
    if bot in ("random", "self", *BOT_NAMES) or name.startswith("ppo:"):
        return bot
    raise ValueError(
        f"--opponents {name!r}: --vec-env batch plays random, self, ppo:PATH and the compiled "
        f"bots ({', '.join(BOT_NAMES)}; strong = strong@v1)"
    )


def _check_batch(cfg: Config) -> None:
    """``--vec-env batch``: the contract game on a built compiled core, opponents it can play."""
    need = partial(_need, cfg)
    need(rule_presets(cfg), "vec_env", "the batch core plays the contract game only")
    from continental_env.contract.batch import _compiled_module

    need(_compiled_module() is not None, "vec_env", "continental_env._batch is not built here")
    for name in parse_names(cfg.opponents, "--opponents"):
        batch_opponent(name)


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
    """``--game-options`` of a side game as a dict (``hands=1,max_hands=3``); {} for a game
    played under a rules preset."""
    if rule_presets(cfg):
        return {}
    pairs = [p for p in cfg.game_options.split(",") if p.strip()]
    return game_spec(cfg.game).parse_options(pairs)


def task_options(cfg: Config) -> dict[str, Any]:
    """The options of the game the run trains on, as ``agents.evaluate.harness.evaluate`` takes
    them: ``preset`` and ``rounds`` under a rules preset, else ``--game-options``."""
    if not rule_presets(cfg):
        return side_options(cfg)
    rounds = parse_rounds(cfg.rounds)
    return {"preset": cfg.preset, **({"rounds": list(rounds)} if rounds else {})}


def validate_side(cfg: Config) -> None:
    """The checks of a side game (``--game fifteen|knock``): its table and options."""
    from agents.side_features import env_name

    try:
        env_name(cfg.game, cfg.side_features)
    except ValueError as exc:
        raise ValueError(f"--side-features {cfg.side_features}: {exc}") from None
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
    if not rule_presets(cfg):
        from agents.side_features import env_name

        env, flags = env_name(cfg.game, cfg.side_features), "--side-features picks"
        if not meta:
            raise ValueError(f"--init-policy {path!r}: a side game's model records its game")
    else:
        env, flags = ENVS[int(cfg.features)], "--features / --no-features pick"
    try:
        check_env(meta, f"--init-policy {path!r}", cfg.players, env)
    except ValueError as exc:
        raise ValueError(f"{exc} ({flags} the observation)") from None


def run_metadata(cfg: dict[str, Any]) -> dict[str, Any]:
    """What this run's models are trained for (``features``: ``continental_v1``, else v0)."""
    game = cfg.get("game", DEFAULT_GAME)
    if not game_spec(game).rule_presets:
        from agents.train.side_single_agent import side_metadata

        return side_metadata(
            game,
            cfg["players"],
            side_options(Config(**cfg)),
            features=cfg.get("side_features") or False,
        )
    version = 1 if cfg.get("features") else 0
    return model_metadata(cfg["players"], cfg["preset"], parse_rounds(cfg["rounds"]), version)


def parse_ints(text: str) -> list[int]:
    """``'256,256'`` -> [256, 256]."""
    return [int(x) for x in text.split(",") if x]
