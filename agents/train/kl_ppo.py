"""MaskablePPO that stays near a frozen reference policy (a behaviour clone), less and less.

``KLPolicy`` is MaskablePPO's policy (``MaskableActorCriticPolicy``, the same network) holding a
frozen copy of a reference policy (``set_reference``). While its ``kl_coef`` is positive, the
PPO loss gains ``kl_coef * KL(reference || policy)``, the divergence over the legal actions of
each rollout state (kickstarting: the learner keeps the teacher's choices covered while the
reward pulls it elsewhere). ``KLAnneal`` (a callback) sets ``kl_coef`` from ``--kl-coef`` at the
start down to 0, linearly over ``--kl-anneal-steps`` learner steps of the global step counter, so
a resumed run continues the schedule.

MaskablePPO's loss is ``policy + ent_coef * (-mean entropy) + vf_coef * value``, and the entropy
comes from ``policy.evaluate_actions``; the KL enters there: ``evaluate_actions`` returns
``entropy - KL * kl_coef / ent_coef``, so the loss gains exactly ``kl_coef * mean KL`` (which is
why ``ent_coef`` must be positive). The logged ``train/entropy_loss`` then includes the KL term;
``train/kl_to_reference`` and ``train/kl_coef`` are logged on their own. The reference is kept
outside the module tree: it is neither trained nor saved with the model (a resumed run sets it
again from ``--init-policy``).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback

HUGE_NEG = -1e8  # the logit of a masked action (as sb3-contrib's MaskableCategorical)


class LeanPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy (the same network and the same sampling distribution) whose rollout
    step samples the masked softmax with plain tensor operations.

    sb3-contrib's ``forward`` builds a ``MaskableCategorical`` (two ``torch.distributions``
    constructions and their argument checks) for every step of a rollout; at a few environments
    per step that is most of the policy's cost. Here: the logits, masked actions at -1e8, one
    ``log_softmax``, ``multinomial`` on its exponent (what ``Categorical.sample`` does) and the
    chosen actions' log-probabilities gathered from it. ``evaluate_actions`` (the update) the
    same way: one ``log_softmax`` of the masked logits gives the log-probabilities, the entropy
    over the legal actions (``MaskableCategorical.entropy``) and what the KL term reads, without
    the distribution objects' normalisation, argument checks and second exponent.
    """

    def _masked_log_p(self, latent_pi: torch.Tensor, action_masks: Any) -> torch.Tensor:
        logits = self.action_net(latent_pi)
        if action_masks is not None:
            mask = torch.as_tensor(action_masks, dtype=torch.bool).reshape(logits.shape)
            logits = torch.where(mask, logits, torch.tensor(HUGE_NEG, dtype=logits.dtype))
        return torch.log_softmax(logits, dim=1)

    def evaluate_actions(
        self, obs: torch.Tensor, actions: torch.Tensor, action_masks: Any = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        latent_pi, latent_vf = self._latents(obs)
        log_p = self._masked_log_p(latent_pi, action_masks)
        return self.value_net(latent_vf), _log_prob(log_p, actions), _entropy(log_p, action_masks)

    def _latents(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The actor's and the critic's latent vectors (shared or separate feature extractors)."""
        features = self.extract_features(obs)
        if self.share_features_extractor:
            return self.mlp_extractor(features)
        pi_features, vf_features = features
        return (
            self.mlp_extractor.forward_actor(pi_features),
            self.mlp_extractor.forward_critic(vf_features),
        )

    def forward(
        self, obs: torch.Tensor, deterministic: bool = False, action_masks: Any = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        latent_pi, latent_vf = self._latents(obs)
        values = self.value_net(latent_vf)
        log_p = self._masked_log_p(latent_pi, action_masks)
        if deterministic:
            actions = log_p.argmax(dim=1)
        else:  # as Categorical.sample: one draw with replacement from the probabilities
            actions = torch.multinomial(torch.softmax(log_p, dim=1), 1, True).squeeze(1)
        log_prob = log_p.gather(1, actions.unsqueeze(1)).squeeze(1)
        return actions.reshape((-1, *self.action_space.shape)), values, log_prob


def _log_prob(log_p: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    """The log-probability of each row's action (``Categorical.log_prob``)."""
    return log_p.gather(1, actions.long().reshape(-1, 1)).squeeze(1)


def _entropy(log_p: torch.Tensor, action_masks: Any) -> torch.Tensor:
    """Each row's entropy over its legal actions (``MaskableCategorical.entropy``)."""
    p_log_p = log_p.exp() * log_p
    if action_masks is not None:
        mask = torch.as_tensor(action_masks, dtype=torch.bool).reshape(log_p.shape)
        p_log_p = torch.where(mask, p_log_p, torch.zeros((), dtype=log_p.dtype))
    return -p_log_p.sum(dim=1)


class KLPolicy(LeanPolicy):
    """MaskablePPO's policy with a KL penalty toward a frozen reference (module docstring).

    The reference's log-probabilities are computed once per rollout (``prepare_reference``, at
    the rollout's end), not on every minibatch of every epoch: the reference is frozen and the
    rollout's observations do not change during the update.
    """

    kl_coef = 0.0
    ent_coef = 0.0
    last_kl = 0.0

    def set_reference(self, reference: MaskableActorCriticPolicy) -> None:
        """Freeze a copy of ``reference`` as the policy to stay near."""
        frozen = copy.deepcopy(reference)
        for param in frozen.parameters():
            param.requires_grad_(False)
        frozen.eval()
        self.__dict__["_reference"] = frozen  # not a submodule: not optimised, not saved

    @property
    def reference(self) -> MaskableActorCriticPolicy | None:
        return self.__dict__.get("_reference")

    def _reference_log_probs(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The reference's masked log-probabilities (as its ``MaskableCategorical`` gives them)."""
        with torch.no_grad():
            ref = self.reference.get_distribution(obs, action_masks=mask.numpy())
            return torch.log_softmax(ref.distribution.logits, dim=1)

    def prepare_reference(self, buffer: Any, chunk: int = 1024) -> None:
        """Compute the reference's log-probabilities for every state of a full rollout buffer,
        in the order its minibatches index (``swap_and_flatten``), and note the indices of each
        minibatch the buffer hands out, so that ``kl_to_reference`` looks them up."""
        obs = torch.as_tensor(buffer.swap_and_flatten(buffer.observations))
        masks = torch.as_tensor(buffer.swap_and_flatten(buffer.action_masks), dtype=torch.bool)
        self.__dict__["_ref_log"] = torch.cat(
            [
                self._reference_log_probs(obs[i : i + chunk], masks[i : i + chunk])
                for i in range(0, len(obs), chunk)
            ]
        )
        self.__dict__["_batch"] = None
        if not getattr(buffer, "_notes_batches", False):
            original = buffer._get_samples
            policy = self

            def noting(batch_inds: np.ndarray, env: Any = None) -> Any:
                policy.__dict__["_batch"] = torch.as_tensor(batch_inds)
                return original(batch_inds, env)

            buffer._get_samples = noting
            buffer._notes_batches = True

    def kl_to_reference(self, obs: torch.Tensor, logits: torch.Tensor, masks: Any) -> torch.Tensor:
        """KL(reference || policy) per state over the legal actions, given the policy's logits."""
        mask = torch.as_tensor(np.asarray(masks), dtype=torch.bool).reshape(logits.shape)
        batch = self.__dict__.get("_batch")
        if batch is not None and len(batch) == len(obs):
            ref_log = self.__dict__["_ref_log"][batch]  # prepared at the rollout's end
            self.__dict__["_batch"] = None  # one minibatch, one lookup
        else:
            ref_log = self._reference_log_probs(obs, mask)
        own_log = torch.log_softmax(logits, dim=1)
        terms = torch.where(mask, ref_log.exp() * (ref_log - own_log), torch.zeros_like(own_log))
        return terms.sum(dim=1)

    def evaluate_actions(
        self, obs: torch.Tensor, actions: torch.Tensor, action_masks: Any = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        latent_pi, latent_vf = self._latents(obs)
        log_p = self._masked_log_p(latent_pi, action_masks)
        values = self.value_net(latent_vf)
        entropy = _entropy(log_p, action_masks)
        if self.reference is not None and self.kl_coef > 0 and action_masks is not None:
            if self.ent_coef <= 0:
                raise ValueError("the KL penalty enters through the entropy term: ent_coef > 0")
            kl = self.kl_to_reference(obs, log_p, action_masks)
            self.last_kl = float(kl.mean().detach())
            entropy = entropy - kl * (self.kl_coef / self.ent_coef)
        return values, _log_prob(log_p, actions), entropy


class KLAnneal(BaseCallback):
    """Sets the policy's ``kl_coef``: ``start`` at step ``first`` falling linearly to 0 over
    ``steps`` learner steps (module docstring)."""

    def __init__(self, start: float, steps: int, first: int = 0) -> None:
        super().__init__()
        self.start = start
        self.steps = max(1, steps)
        self.first = first

    def coef(self, step: int) -> float:
        done = max(0, step - self.first)
        return self.start * max(0.0, 1.0 - done / self.steps)

    def _on_training_start(self) -> None:
        self.model.policy.ent_coef = float(self.model.ent_coef)
        self.model.policy.kl_coef = self.coef(self.num_timesteps)

    def _on_rollout_end(self) -> None:
        policy = self.model.policy
        policy.kl_coef = self.coef(self.num_timesteps)
        if policy.kl_coef > 0 and policy.reference is not None:
            policy.prepare_reference(self.model.rollout_buffer)
        self.logger.record("train/kl_coef", self.model.policy.kl_coef)
        self.logger.record("train/kl_to_reference", self.model.policy.last_kl)

    def _on_step(self) -> bool:
        return True
