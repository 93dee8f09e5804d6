"""What runs during ``continental train``'s ``learn``: the callback (progress bar, throughput,
snapshots for self-play, checkpoints, periodic evaluation on duplicate deals), the stop request
that SIGTERM and Ctrl-C raise, and the vectorised environments with their masks."""

from __future__ import annotations

import dataclasses
import signal
import time
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import (
    DummyVecEnv,
    SubprocVecEnv,
    VecEnv,
    VecEnvWrapper,
    VecMonitor,
)
from tqdm import tqdm

from agents.cli import parse_names, parse_rounds
from agents.games import DEFAULT_GAME, game_spec
from agents.train.checkpoints import save_checkpoint
from agents.train.config import (
    Config,
    batch_opponent,
    rule_presets,
    run_metadata,
    side_options,
    task_options,
)
from agents.train.single_agent import make_env, make_worker_env


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
    game: str = DEFAULT_GAME,
    options: dict[str, Any] | None = None,
) -> dict[str, float]:
    """Mean points (chips) per game of the policy (a ``.npz``, v0 or v1: it records which) and
    of ``opponent``, and their difference, on the game ``options`` describe (the contract
    game's ``preset`` and ``rounds`` there take precedence over ``preset``)."""
    from agents.evaluate.harness import evaluate

    name = f"ppo:{policy_path}"
    report = evaluate([name, opponent], players=players, games=deals, seed=seed, preset=preset,
                      game=game, options=options)  # fmt: skip
    paired = report["paired"][opponent]
    low, high = paired["ci95"] or (None, None)  # one deal: no interval
    return {
        "points": report["agents"][name]["mean_points"],
        "opponent_points": report["agents"][opponent]["mean_points"],
        "diff": paired["mean_diff"],
        "diff_ci95_low": low,
        "diff_ci95_high": high,
        "games": report["config"]["games"],
    }


# ---------------------------------------------------------------------------------------------
# The callback: progress bar, throughput, snapshots for self-play, checkpoints, evaluation.
# ---------------------------------------------------------------------------------------------
PROGRESS_EVERY_S = 60.0  # seconds between progress lines (the first comes after one rollout)


def _clock(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{secs:02d}"


def progress_line(steps: int, total: int, steps0: int, elapsed: float) -> str:
    """Steps done of ``total``, the time since this process started training and the time left
    at its average rate so far (periodic evaluations and checkpoints included)."""
    rate = (steps - steps0) / max(elapsed, 1e-9)
    left = max(total - steps, 0) / rate if rate > 0 else float("nan")
    eta = f"about {_clock(left)} left" if left == left else "time left unknown"
    return (
        f"[progress] {steps:,} / {total:,} steps ({100 * steps / max(total, 1):.1f} %), "
        f"{_clock(elapsed)} elapsed, {eta} at {rate:,.0f} steps/s"
    )


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
        self.last_line: float | None = None  # when the last progress line was printed

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
        now = time.time()
        elapsed = now - self.t0
        sps = (self.num_timesteps - self.steps0) / max(elapsed, 1e-9)
        self.logger.record("charts/steps_per_second", sps)
        # A line with the time left, also where the bar is not seen (a log file, a batch job).
        if self.cfg.progress and (
            self.last_line is None or now - self.last_line >= PROGRESS_EVERY_S
        ):
            self.last_line = now
            line = progress_line(self.num_timesteps, self.cfg.total_timesteps, self.steps0, elapsed)
            (tqdm.write if self.bar is not None else partial(print, flush=True))(line)

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
        spec = game_spec(cfg.game)
        path = self.run_dir / "eval_policy.npz"
        NumpyPolicy.from_sb3(self.model.policy, meta=self.model_meta()).save_npz(str(path))
        t = time.time()
        # The training task's game: its rounds, preset or --game-options, not the defaults.
        result = evaluate_policy(path, cfg.eval_opponent, cfg.players, cfg.preset, cfg.eval_deals,
                                 seed=10_000, game=cfg.game, options=task_options(cfg))  # fmt: skip
        for key in ("points", "opponent_points", "diff"):
            self.logger.record(f"eval/{key}_vs_{cfg.eval_opponent}", result[key])
        self.logger.record("eval/seconds", time.time() - t)
        msg = (
            f"[eval @ {self.num_timesteps}] vs {cfg.eval_opponent}: "
            f"{result['points']:.1f} vs {result['opponent_points']:.1f} "
            f"{spec.unit}/game "
            f"(diff {result['diff']:+.1f} {_interval(result)}, {result['games']} games)"
        )
        (tqdm.write if self.bar is not None else print)(msg)
        sign = spec.sign()  # points: lower is better; chips: higher
        if self.best is None or sign * result["diff"] > sign * self.best:
            self.best = result["diff"]
            save_checkpoint(self.model, self.ckpt_dir, "best", {**self.extra(), "eval": result})


def _interval(result: dict[str, Any]) -> str:
    """``[low, high]`` of a periodic evaluation's difference, or ``n/a (1 deal)``."""
    if result["diff_ci95_low"] is None:
        return "n/a (1 deal)"
    return f"[{result['diff_ci95_low']:.1f}, {result['diff_ci95_high']:.1f}]"


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


def _snapshot_policy(path: str) -> Any:
    """A batched opponent policy(obs, mask) -> actions from a numpy export (``.npz``)."""
    from agents.bots.ppo_agent import NumpyPolicy

    return NumpyPolicy.load_npz(path, name=f"self:{path}").batch_actions


def batch_vec_env(cfg: Config, base_seed: int) -> Any:
    """``num_envs`` contract tables on the compiled batch core (``BatchLearnerSB3VecEnv``): the
    opponents a pool drawn per seat and game, the compiled bots decided in C, ``self`` the
    learner's snapshots and ``ppo:PATH`` networks in one forward pass per decision."""
    from agents.bots.ppo_agent import load_agent
    from continental_env.contract.batch_vec import BatchLearnerSB3VecEnv

    pool: list[Any] = []
    for name in parse_names(cfg.opponents, "--opponents"):
        bot = batch_opponent(name)
        pool.append(load_agent(bot[4:]).batch_actions if bot.startswith("ppo:") else bot)
    venv = BatchLearnerSB3VecEnv(
        cfg.num_envs,
        num_players=cfg.players,
        preset=cfg.preset,
        rounds=parse_rounds(cfg.rounds),
        opponent=pool,
        round_episodes=cfg.round_episodes,
        observation="v1" if cfg.features else "v0",
        backend="compiled",
        load_snapshot=_snapshot_policy,
    )
    venv.seed(base_seed % (1 << 63))
    return venv


def make_vec_env(cfg: Config, base_seed: int) -> VecMonitor:
    """``num_envs`` single-learner environments, each seeded ``base_seed + rank``; with
    ``--vec-env batch`` the tables of one compiled batch (``batch_vec_env``)."""
    if cfg.vec_env == "batch":
        return VecMonitor(batch_vec_env(cfg, base_seed))
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
    if not rule_presets(cfg):  # a side game's learner seat instead
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
                features=cfg.side_features,
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
