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


def _soft_log_likelihood(
    policy: Any, obs: torch.Tensor, masks: np.ndarray, ids: torch.Tensor, probs: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(values, sum_k p_k log pi(a_k | obs), entropy, log pi over every action) for a
    MaskablePPO policy: one forward pass."""
    dist = policy.get_distribution(obs, action_masks=masks)
    log_all = torch.log_softmax(dist.distribution.logits, dim=-1)
    picked = log_all.gather(1, ids)
    log_lik = (probs * torch.where(probs > 0, picked, torch.zeros_like(picked))).sum(1)
    return policy.predict_values(obs), log_lik, dist.entropy(), log_all


def soft_targets(
    actions: np.ndarray,
    cands: Sequence[np.ndarray],
    means: Sequence[np.ndarray],
    weight: float,
    temperature: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Per decision, up to K action ids and their target probabilities (both (B, K), padded
    with probability 0): ``1 - weight`` on the teacher's action plus ``weight`` spread over the
    searched candidates as softmax(-mean / temperature) (a lower mean outcome is better). A
    decision without candidates keeps all of it on the teacher's action."""
    width = max([1 + len(c) for c in cands] or [1])
    ids = np.zeros((len(actions), width), dtype=np.int64)
    probs = np.zeros((len(actions), width), dtype=np.float32)
    ids[:, 0] = actions
    probs[:, 0] = 1.0
    for row, (c, m) in enumerate(zip(cands, means, strict=True)):
        if len(c) == 0:
            continue
        z = -(np.asarray(m, dtype=np.float64) - np.min(m)) / temperature
        q = np.exp(z) / np.exp(z).sum()
        probs[row, 0] = 1.0 - weight
        ids[row, 1 : 1 + len(c)] = c
        probs[row, 1 : 1 + len(c)] = weight * q
    return ids, probs


def copy_policy_layers(layers: Sequence[torch.nn.Linear], policy: Any) -> None:
    """Copy a ``NumpyPolicy``'s weights into ``layers`` (the same shapes, in order): how a
    trainer starts from a policy file."""
    with torch.no_grad():
        for layer, (w, b) in zip(layers, policy.weights, strict=True):
            layer.weight.copy_(torch.from_numpy(np.ascontiguousarray(w.T)))
            layer.bias.copy_(torch.from_numpy(b))


def legal_masks(rows: Sequence[Sequence[int]], num_actions: int) -> np.ndarray:
    """One boolean mask row per decision from its legal action ids."""
    masks = np.zeros((len(rows), num_actions), dtype=bool)
    for row, legal in enumerate(rows):
        masks[row, legal] = True
    return masks


def frozen_copy(policy: Any) -> Any:
    """A copy of an SB3 policy with the same weights, in eval mode, apart from ``policy`` (built
    from its constructor's arguments: a deep copy fails once a distribution with gradients
    hangs on the policy)."""
    twin = type(policy)(**policy._get_constructor_parameters())
    twin.load_state_dict(policy.state_dict())
    return twin.eval()


def reference_log_probs(policy: Any, obs: torch.Tensor, masks: np.ndarray) -> torch.Tensor:
    """A (frozen) policy's log-probabilities over every action, (B, A), without gradients; an
    illegal action's is about -1e8 (SB3 masks its logit), so its probability is 0."""
    with torch.no_grad():
        logits = policy.get_distribution(obs, action_masks=masks).distribution.logits
        return torch.log_softmax(logits, dim=-1)


def anchor_kl(policy: Any, obs: torch.Tensor, masks: np.ndarray, ref: torch.Tensor) -> torch.Tensor:
    """The batch's mean KL(reference || policy) over the legal actions (``ref``:
    ``reference_log_probs``)."""
    logits = policy.get_distribution(obs, action_masks=masks).distribution.logits
    return _kl(ref, torch.log_softmax(logits, dim=-1))


def _kl(ref: torch.Tensor, log_p: torch.Tensor) -> torch.Tensor:
    """Mean over the batch of KL(ref || p), both as log-probabilities over every action."""
    return (ref.exp() * (ref - log_p)).sum(1).mean()


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
    targets: tuple[torch.Tensor, torch.Tensor] | None = None,
    anchor: tuple[torch.Tensor, float] | None = None,
) -> dict[str, torch.Tensor]:
    """One gradient step on a batch; the losses and the teacher's actions' log-probabilities.

    ``weights`` (one per decision) weigh the policy loss: a weighted mean of the log-likelihoods.
    ``targets`` (``soft_targets``: action ids and probabilities, each (B, K)) replace the one
    teacher action by a distribution over K actions: the log-likelihood is then
    sum_k p_k log pi(a_k) (with p one-hot on the teacher's action it is the hard loss).
    ``anchor`` (log-probabilities of a reference policy over every action, (B, A), an illegal
    action's probability 0; and a weight) adds weight x the batch's mean KL(reference || policy):
    the policy learns the labels while staying near the reference where they do not pull.

    FloatingPointError (the policy unchanged) if the loss is not finite.
    """
    log_all = None
    if targets is not None:
        values, log_prob, entropy, log_all = _soft_log_likelihood(policy, obs, masks, *targets)
    elif anchor is not None:  # the teacher's action as a one-hot target: the KL reads its pass
        one_hot = (actions.long().unsqueeze(1), torch.ones(len(actions), 1))
        values, log_prob, entropy, log_all = _soft_log_likelihood(policy, obs, masks, *one_hot)
    else:
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
    kl = None
    if anchor is not None:
        kl = _kl(anchor[0], log_all)
        loss = loss + anchor[1] * kl
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
        "anchor_kl": kl if kl is not None else torch.zeros(()),
        "log_prob": log_prob,
    }
