"""The learner's policy in ``continental train-rllib``: its actor exported as a ``NumpyPolicy``
(``rllib:PATH``), and self-play: the callback that freezes it into the opponent pool as it
improves, the pool on disk, and sending the pool to every env runner."""

from __future__ import annotations

import os
import re
from typing import Any

import numpy as np

from agents.bots.ppo_agent import NumpyPolicy
from agents.bots.rllib_agent import TRAINER
from agents.rllib.env import LEARNER, SNAPSHOTS

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
