"""The warm start of ``continental train --bc-teacher``: behaviour cloning of a teacher bot's
decisions before PPO (``--bc-samples``, ``--bc-epochs``, ``--bc-learning-rate``; side games also
``--bc-data`` and ``--bc-augment-suits``)."""

from __future__ import annotations

import math
import os
import signal
import time
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from agents.side_features import feature_version as side_version
from agents.train.config import Config, rule_presets, side_options
from continental_env.rewards import relative_reward

if TYPE_CHECKING:
    from collections.abc import Callable
    from multiprocessing.pool import Pool

    from agents.train.callback import StopRequest


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
    from agents.contract.view import PlayerView
    from continental_env.contract.aec import encode_observation, observation_layout
    from continental_env.contract.game import Game

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
    """A warm-start worker's start: in a process group of its own, Ctrl-C ignored.

    SIGTERM or SIGINT sent to the training process's group (``timeout``, batch schedulers,
    ``kill -- -PGID``, a terminal) must not reach the workers: one ended mid-task left the pool
    waiting forever for its task, or on a queue lock it held. The training process stops the
    pool itself (``Pool.terminate`` sends each worker SIGTERM, of which it dies: ``fork_pool``).
    """
    os.setpgrp()
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def fork_pool(processes: int, initializer: Callable[[], None] | None = None) -> Pool:
    """A fork pool whose workers die of SIGTERM from their first instruction on.

    The training process's SIGTERM handler only asks for a clean stop, and a forked worker
    inherits it. The pool ends its workers with SIGTERM, so a worker that caught it kept waiting
    for tasks and the pool's exit waited for it forever. Resetting the handler in the worker's
    initializer left a window: a pool closed right after it opened (as when the data was read
    from ``--bc-data``) hung now and then. So the workers are forked with the default handler,
    and the training process's own is put back at once."""
    import multiprocessing as mp

    previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        return mp.get_context("fork").Pool(processes, initializer=initializer)
    finally:
        signal.signal(signal.SIGTERM, previous)


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
        obs_src, action_src, action_dst = suit_permutation(
            cfg.game, cfg.players, perm, features=cfg.side_features
        )
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
    t0 = time.time()
    data = _teacher_data(cfg, stop, t0)
    if data is None:
        print("warm start stopped before any decision was collected", flush=True)
        return
    _fit(model, cfg, writer_dir, stop, data)
    print(f"warm start done in {time.time() - t0:.0f} s", flush=True)


def _collect(cfg: Config, stop: StopRequest) -> tuple[list[dict[str, Any]], int, bool]:
    """The teacher's decisions (read from ``--bc-data`` when it exists), the games played for
    them, and whether they were read."""
    parts: list[dict[str, Any]] = []
    n = 0
    game = 0
    worker: Any = teacher_decisions
    side = not rule_presets(cfg)
    if side:
        from agents.train.side_single_agent import teacher_decisions as side_teacher

        worker = partial(side_teacher, cfg.game, side_options(cfg))
    saved = bool(side and cfg.bc_data and os.path.exists(cfg.bc_data))
    if saved:
        parts.append(load_bc_data(cfg.bc_data))
        return parts, game, saved
    with fork_pool(cfg.num_envs, initializer=_ignore_sigint) as pool:
        while n < cfg.bc_samples and not stop.requested:
            tasks = [
                (
                    cfg.bc_teacher,
                    cfg.players,
                    cfg.preset,
                    cfg.seed * 7919 + game + i,
                    game + i,
                    side_version(cfg.side_features) if side else int(cfg.features),
                )
                for i in range(64)
            ]
            game += len(tasks)
            results = pool.imap_unordered(worker, tasks)
            for _task in tasks:
                part = _next_unless_stopped(results, stop)
                if part is None:
                    break  # leaving the block ends the pool and the games in play
                parts.append(part)
                n += len(part["actions"])
    return parts, game, saved


def _next_unless_stopped(results: Any, stop: StopRequest) -> dict[str, Any] | None:
    """The pool's next result, or None once a stop is requested (waited for in short slices,
    so that a stop does not wait for the batch's remaining games)."""
    import multiprocessing as mp

    while not stop.requested:
        try:
            return results.next(timeout=0.5)
        except mp.TimeoutError:
            continue
    return None


def _teacher_data(cfg: Config, stop: StopRequest, t0: float) -> tuple[Any, Any, Any, list] | None:
    """The teacher's observations, actions, round rewards (tensors) and legal actions; a side
    game's are saved to ``--bc-data`` when they were collected now. None when a stop came
    before any decision."""
    parts, game, saved = _collect(cfg, stop)
    if not parts:
        return None
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
        if not rule_presets(cfg) and cfg.bc_data:
            save_bc_data(cfg.bc_data, obs.numpy(), legal, actions.numpy(), returns.numpy())
    return obs, actions, returns, legal


def _fit(
    model: MaskablePPO,
    cfg: Config,
    writer_dir: Path,
    stop: StopRequest,
    data: tuple[Any, Any, Any, list],
) -> None:
    """``--bc-epochs`` passes of minibatches of 1024 over the decisions, logged to TensorBoard."""
    from torch.utils.tensorboard import SummaryWriter

    obs, actions, _returns, legal = data
    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.bc_learning_rate)
    writer = SummaryWriter(str(writer_dir / "bc"))
    n_actions = model.action_space.n
    step = 0
    # Side games: the last 5 % of the decisions (whole games, in collection order) are held out
    # to measure how often the clone's top action is the teacher's.
    train_n = len(legal) - (0 if rule_presets(cfg) else len(legal) // 20)
    relabel = suit_relabellings(cfg) if cfg.bc_augment_suits else None
    rng = np.random.default_rng(cfg.seed)
    fit = _Epoch(policy, optimizer, writer, n_actions, relabel, rng, cfg)
    for epoch in range(cfg.bc_epochs):
        if stop.requested or not legal:
            break
        step, out = fit.run(data, train_n, step)
        held = ""
        if train_n < len(legal):
            top = heldout_accuracy(policy, obs, actions, legal, train_n, n_actions)
            writer.add_scalar("bc/heldout_top_action_accuracy", top, step)
            held = f", held-out top-action accuracy {top:.3f}"
        print(f"warm start epoch {epoch + 1}: policy loss {out['policy_loss'].item():.3f}, "
              f"value loss {out['value_loss'].item():.3f}{held}", flush=True)  # fmt: skip
    writer.close()


class _Epoch:
    """One pass over the first ``train_n`` decisions in a random order (``torch.randperm``),
    each minibatch under a random suit relabelling with ``--bc-augment-suits``."""

    batch = 1024

    def __init__(
        self,
        policy: Any,
        optimizer: Any,
        writer: Any,
        n_actions: int,
        relabel: list[tuple[Any, Any, Any]] | None,
        rng: np.random.Generator,
        cfg: Config,
    ) -> None:
        self.policy, self.optimizer, self.writer = policy, optimizer, writer
        self.n_actions, self.relabel, self.rng, self.cfg = n_actions, relabel, rng, cfg

    def run(self, data: tuple[Any, Any, Any, list], train_n: int, step: int) -> tuple[int, dict]:
        """The step counter after the pass and the last minibatch's ``clone_step`` output."""
        from agents.train.cloning import clone_step, legal_masks

        obs, actions, returns, legal = data
        order = torch.randperm(train_n)
        out: dict[str, Any] = {}
        for start in range(0, train_n, self.batch):
            idx = order[start : start + self.batch]
            masks = legal_masks([legal[i] for i in idx.tolist()], self.n_actions)
            batch_obs, batch_actions = obs[idx], actions[idx]
            if self.relabel is not None:
                obs_src, action_src, action_dst = self.relabel[self.rng.integers(len(self.relabel))]
                batch_obs, masks = batch_obs[:, obs_src], masks[:, action_src]
                batch_actions = action_dst[batch_actions]
            out = clone_step(self.policy, self.optimizer, batch_obs, batch_actions, returns[idx],
                             masks, vf_coef=self.cfg.vf_coef,
                             max_grad_norm=self.cfg.max_grad_norm)  # fmt: skip
            if step % 50 == 0:
                self.log(out, step)
            step += 1
        return step, out

    def log(self, out: dict[str, Any], step: int) -> None:
        accuracy = (out["log_prob"] > math.log(0.5)).float().mean().item()
        self.writer.add_scalar("bc/policy_loss", out["policy_loss"].item(), step)
        self.writer.add_scalar("bc/value_loss", out["value_loss"].item(), step)
        self.writer.add_scalar("bc/teacher_prob_over_half", accuracy, step)
