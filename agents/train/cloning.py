"""Behaviour cloning's one update: fit a MaskablePPO policy to a teacher's decisions.

Both ways of cloning a teacher bot use it: ``continental train --bc-teacher`` (the warm start
before PPO, ``agents.train.sb3``) and ``python -m agents.train.imitation clone`` (a clone kept on
disk from a recorded dataset). Each batch is the teacher's action among the legal ones (masked
cross-entropy), the value head fitted to the round's reward, an optional entropy bonus (so the
clone stays stochastic enough for PPO to explore), a loss that is not finite stops the run
(sb3-contrib #291 reports NaNs after cloning), and the gradient is clipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch


def legal_masks(rows: Sequence[Sequence[int]], num_actions: int) -> np.ndarray:
    """One boolean mask row per decision from its legal action ids."""
    masks = np.zeros((len(rows), num_actions), dtype=bool)
    for row, legal in enumerate(rows):
        masks[row, legal] = True
    return masks


def clone_step(
    policy: Any,
    optimizer: torch.optim.Optimizer,
    obs: torch.Tensor,
    actions: torch.Tensor,
    returns: torch.Tensor,
    masks: np.ndarray,
    *,
    vf_coef: float,
    max_grad_norm: float,
    ent_coef: float = 0.0,
    weights: torch.Tensor | None = None,
) -> dict[str, torch.Tensor]:
    """One gradient step on a batch; the losses and the teacher's actions' log-probabilities.

    ``weights`` (one per decision) weigh the policy loss: a weighted mean of the log-likelihoods.

    FloatingPointError (the policy unchanged) if the loss is not finite.
    """
    values, log_prob, entropy = policy.evaluate_actions(obs, actions, masks)
    if weights is None:
        policy_loss = -log_prob.mean()
    else:
        if weights.shape != log_prob.shape:
            raise ValueError(
                f"weights of shape {tuple(weights.shape)}, the batch's is {tuple(log_prob.shape)}"
            )
        policy_loss = -(weights * log_prob).sum() / weights.sum()
    value_loss = torch.nn.functional.mse_loss(values.flatten(), returns)
    loss = policy_loss - ent_coef * entropy.mean() if ent_coef else policy_loss
    loss = loss + vf_coef * value_loss
    if not torch.isfinite(loss):
        raise FloatingPointError("the cloning loss is not finite")
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(policy.parameters(), max_grad_norm)
    optimizer.step()
    return {
        "loss": loss,
        "policy_loss": policy_loss,
        "value_loss": value_loss,
        "log_prob": log_prob,
    }
