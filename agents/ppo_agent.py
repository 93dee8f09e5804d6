"""Trained MaskablePPO policies as agents: ``ppo:PATH`` in ``agents.make_agent`` and the CLI.

Strategy: whatever the network learned (``train.py``). At each decision the agent builds its
seat's observation vector, runs the policy network's actor (the MLP and the action head), and
plays the legal action with the highest logit (deterministic by default; ``deterministic=False``
samples from the masked softmax with the agent's own seeded generator).

The forward pass runs in numpy: one observation at a time through a small MLP is several times
faster in numpy than in torch, it needs no torch threads in evaluation workers, and frozen
snapshots of the learner (``.npz``, written by ``train.py``) play as training opponents inside
environment workers that never import torch. torch is imported only to read an SB3 ``.zip``.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from agents.base import PlayerView

ACTIVATIONS = ("tanh", "relu")


class NumpyPolicy:
    """The actor of an SB3 MLP policy as numpy arrays; an agent of the ``act(view)`` protocol."""

    def __init__(
        self,
        weights: list[tuple[np.ndarray, np.ndarray]],
        activation: str = "tanh",
        name: str = "ppo",
        deterministic: bool = True,
        seed: int | None = None,
    ) -> None:
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation={activation!r}: choose one of {ACTIVATIONS}")
        # Stored transposed (in x out) and contiguous, for obs @ W.
        self.weights = [
            (np.ascontiguousarray(w.T, dtype=np.float32), b.astype(np.float32)) for w, b in weights
        ]
        self.activation = activation
        self.name = name
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)

    # ------------------------------------------------------------------ building

    @classmethod
    def from_sb3(cls, policy: Any, **kwargs: Any) -> NumpyPolicy:
        """From an sb3-contrib ``MaskableActorCriticPolicy`` with an MLP extractor."""
        import torch

        layers = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
        acts = {
            type(m).__name__.lower()
            for m in policy.mlp_extractor.policy_net
            if not isinstance(m, torch.nn.Linear)
        }
        if len(acts) > 1 or not acts <= set(ACTIVATIONS):
            raise ValueError(f"unsupported activation(s) {acts}")
        weights = [
            (m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy())
            for m in [*layers, policy.action_net]
        ]
        return cls(weights, activation=acts.pop() if acts else "tanh", **kwargs)

    def save_npz(self, path: str) -> None:
        """Write the weights to ``path`` (.npz) atomically."""
        arrays = {}
        for i, (w, b) in enumerate(self.weights):
            arrays[f"w{i}"] = w.T
            arrays[f"b{i}"] = b
        tmp = f"{path}.{os.getpid()}.tmp.npz"
        np.savez(tmp, activation=np.array(self.activation), **arrays)
        os.replace(tmp, path)

    @classmethod
    def load_npz(cls, path: str, **kwargs: Any) -> NumpyPolicy:
        """Read weights written by ``save_npz``."""
        with np.load(path) as data:
            n = sum(1 for k in data.files if k.startswith("w"))
            weights = [(data[f"w{i}"], data[f"b{i}"]) for i in range(n)]
            activation = str(data["activation"])
        return cls(weights, activation=activation, **kwargs)

    # ------------------------------------------------------------------ acting

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Action logits for one observation vector."""
        x = np.asarray(obs, dtype=np.float32)
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(self.weights):
            x = x @ w + b
            if i < last:
                x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, 0.0)
        return x

    def act_from_observation(self, obs: np.ndarray, legal: list[int]) -> int:
        """The action for an observation vector and its legal action ids."""
        if len(legal) == 1:
            return legal[0]
        scores = self.logits(obs)[legal]
        if self.deterministic:
            return legal[int(np.argmax(scores))]
        p = np.exp(scores - scores.max())
        p /= p.sum()
        return legal[int(self.rng.choice(len(legal), p=p))]

    def act(self, view: PlayerView) -> int:
        """A legal action id for ``view.seat`` (the agent protocol)."""
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        return self.act_from_observation(view.observation(), legal)


_LOADED: dict[tuple[str, float], tuple[list[tuple[np.ndarray, np.ndarray]], str]] = {}


def load_agent(path: str, seed: int | None = None, deterministic: bool = True) -> NumpyPolicy:
    """A trained agent from an SB3 MaskablePPO ``.zip`` or a ``.npz`` snapshot (``ppo:PATH``).

    The weights are read once per file (and modification time) and shared: the evaluation
    harness builds a fresh agent for every game.
    """
    key = (os.path.abspath(path), os.path.getmtime(path))
    if key not in _LOADED:
        if str(path).endswith(".npz"):
            policy = NumpyPolicy.load_npz(path)
        else:
            from sb3_contrib import MaskablePPO

            model = MaskablePPO.load(path, device="cpu")
            policy = NumpyPolicy.from_sb3(model.policy)
        _LOADED[key] = ([(w.T, b) for w, b in policy.weights], policy.activation)
    weights, activation = _LOADED[key]
    return NumpyPolicy(
        weights,
        activation=activation,
        name=f"ppo:{path}",
        deterministic=deterministic,
        seed=seed,
    )


def export_model(src: str, dst: str) -> None:
    """Copy a training checkpoint without its optimizer state (a smaller file to ship).

    The result loads with ``MaskablePPO.load`` as before; training it further starts a fresh Adam.
    """
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(src, device="cpu")
    policy = model.policy
    policy.optimizer = policy.optimizer_class(
        policy.parameters(), lr=model.lr_schedule(1), **policy.optimizer_kwargs
    )
    tmp = f"{dst}.{os.getpid()}.tmp.zip"
    model.save(tmp)
    os.replace(tmp, dst)


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 4 or sys.argv[1] != "export":
        sys.exit("usage: python -m agents.ppo_agent export CHECKPOINT.zip OUT.zip")
    export_model(sys.argv[2], sys.argv[3])
