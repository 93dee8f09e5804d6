"""Policies trained with Ray RLlib as agents: ``rllib:PATH`` in ``agents.make_agent``.

Training (``agents.rllib.train``, ``continental train-rllib``) exports the learner's actor (its MLP
encoder and its action head) as numpy arrays next to every RLlib checkpoint, in the same ``.npz``
format as ``agents.bots.ppo_agent``'s snapshots, with the table it was trained for. This module reads
that file: it needs neither ray nor torch, so a policy trained on a Ray cluster plays in the
evaluation harness, the leaderboard and the terminal game of a plain install.

``PATH`` may be a run directory (its latest export, ``policy.npz``), an RLlib checkpoint directory
written by the training (``continental_policy.npz`` inside it), or the ``.npz`` itself. The agent
plays the legal action with the highest logit (the masked argmax). A policy at a table of
another size is refused by ``agents.bots.ppo_agent.check_table`` with one line, before any game.
"""

from __future__ import annotations

import os

from agents.bots.ppo_agent import NumpyPolicy
from agents.bots.ppo_agent import load_agent as load_npz_agent

RUN_POLICY = "policy.npz"  # a run directory's latest export
CHECKPOINT_POLICY = "continental_policy.npz"  # the export inside an RLlib checkpoint directory
TRAINER = "rllib"


def policy_file(path: str) -> str:
    """The exported ``.npz`` for a run directory, a checkpoint directory or the file itself."""
    if os.path.isdir(path):
        for name in (RUN_POLICY, CHECKPOINT_POLICY):
            candidate = os.path.join(path, name)
            if os.path.isfile(candidate):
                return candidate
        raise ValueError(
            f"rllib:{path}: no exported policy in this directory (expected {RUN_POLICY} in a run "
            f"directory or {CHECKPOINT_POLICY} in a checkpoint written by continental train-rllib)"
        )
    if not os.path.isfile(path):
        raise ValueError(f"rllib:{path}: no such run directory, checkpoint or policy file")
    if not path.endswith(".npz"):
        raise ValueError(f"rllib:{path}: not an exported policy (.npz)")
    return path


def load_agent(path: str, seed: int | None = None, deterministic: bool = True) -> NumpyPolicy:
    """The agent for ``rllib:PATH`` (a ValueError naming the path if there is nothing to load)."""
    file = policy_file(path)
    try:
        agent = load_npz_agent(file, seed=seed, deterministic=deterministic)
    except ValueError as exc:
        raise ValueError(f"rllib:{path}: {str(exc).split(': ', 1)[-1]}") from None
    if (agent.meta or {}).get("trainer") != TRAINER:
        raise ValueError(f"rllib:{path}: {file} was not exported by continental train-rllib")
    agent.name = f"rllib:{path}"
    return agent
