"""The lean rollout step and the once-per-rollout KL reference (``agents.train.kl_ppo``) compute
what sb3-contrib's policy and the per-minibatch reference compute."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from gymnasium import spaces  # noqa: E402
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer  # noqa: E402
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy  # noqa: E402

from agents.train.kl_ppo import KLPolicy, LeanPolicy  # noqa: E402

OBS, ACTIONS = 12, 9


def _policy(cls: type, seed: int) -> MaskableActorCriticPolicy:
    torch.manual_seed(seed)
    return cls(
        spaces.Box(-1, 1, (OBS,), np.float32),
        spaces.Discrete(ACTIONS),
        lambda _: 3e-4,
        net_arch={"pi": [16], "vf": [16]},
    )


def _batch(n: int, seed: int) -> tuple[torch.Tensor, np.ndarray]:
    rng = np.random.default_rng(seed)
    obs = torch.as_tensor(rng.normal(size=(n, OBS)).astype(np.float32))
    masks = rng.random((n, ACTIONS)) < 0.4
    masks[np.arange(n), rng.integers(ACTIONS, size=n)] = True  # at least one legal action
    return obs, masks


def test_the_lean_step_samples_and_scores_as_sb3_contrib() -> None:
    lean = _policy(LeanPolicy, 0)
    plain = _policy(MaskableActorCriticPolicy, 0)
    plain.load_state_dict(lean.state_dict())
    obs, masks = _batch(64, 1)
    with torch.no_grad():
        for deterministic in (True, False):
            torch.manual_seed(5)
            a1, v1, lp1 = lean(obs, deterministic=deterministic, action_masks=masks)
            torch.manual_seed(5)
            a2, v2, lp2 = plain(obs, deterministic=deterministic, action_masks=masks)
            assert torch.equal(a1, a2)
            assert torch.allclose(v1, v2) and torch.allclose(lp1, lp2, atol=1e-5)
            assert masks[np.arange(64), a1.numpy()].all()
        # The gathered log-probabilities are those of the chosen actions, not of any others.
        dist = plain.get_distribution(obs, action_masks=masks)
        assert torch.allclose(dist.log_prob(a1), lp1, atol=1e-5)
        other = torch.as_tensor(masks.argmax(axis=1))
        assert not torch.allclose(dist.log_prob(other), lp1, atol=1e-5)


def test_the_reference_prepared_once_per_rollout_gives_the_same_kl() -> None:
    policy = _policy(KLPolicy, 2)
    policy.set_reference(_policy(MaskableActorCriticPolicy, 3))
    n_steps, n_envs = 16, 4
    buffer = MaskableRolloutBuffer(
        n_steps, spaces.Box(-1, 1, (OBS,), np.float32), spaces.Discrete(ACTIONS), n_envs=n_envs
    )
    for step in range(n_steps):
        obs, masks = _batch(n_envs, 10 + step)
        buffer.add(
            obs.numpy(),
            np.zeros((n_envs, 1)),
            np.zeros(n_envs),
            np.zeros(n_envs, dtype=bool),
            torch.zeros(n_envs),
            torch.zeros(n_envs),
            action_masks=masks,
        )
    policy.prepare_reference(buffer, chunk=7)
    compared = 0
    for sample in buffer.get(batch_size=20):
        logits = policy.get_distribution(sample.observations).distribution.logits
        prepared = policy.kl_to_reference(sample.observations, logits, sample.action_masks)
        again = policy.kl_to_reference(sample.observations, logits, sample.action_masks)
        assert torch.allclose(prepared, again, atol=1e-6)  # the second call recomputes
        assert (prepared >= -1e-6).all()
        compared += 1
    assert compared == 4
    # Positive control: another reference gives another KL.
    policy.set_reference(_policy(MaskableActorCriticPolicy, 4))
    sample = next(iter(buffer.get(batch_size=64)))
    logits = policy.get_distribution(sample.observations).distribution.logits
    fresh = policy.kl_to_reference(sample.observations, logits, sample.action_masks)
    assert not torch.allclose(fresh, prepared.mean() * torch.ones_like(fresh))


def test_the_lean_update_evaluates_as_sb3_contrib() -> None:
    """``evaluate_actions`` of the lean policy (and of the KL policy without its penalty) gives
    sb3-contrib's values, log-probabilities and masked entropies, and their gradients."""
    obs, masks = _batch(32, 7)
    for cls in (LeanPolicy, KLPolicy):
        lean = _policy(cls, 0)
        plain = _policy(MaskableActorCriticPolicy, 0)
        plain.load_state_dict(lean.state_dict())
        actions = torch.as_tensor(np.array([np.flatnonzero(m)[0] for m in masks]))
        v1, lp1, e1 = lean.evaluate_actions(obs, actions, action_masks=masks)
        v2, lp2, e2 = plain.evaluate_actions(obs, actions, action_masks=masks)
        assert torch.allclose(v1, v2) and torch.allclose(lp1, lp2, atol=1e-5)
        assert torch.allclose(e1, e2, atol=1e-5)
        (lp1.sum() + e1.sum() + v1.sum()).backward()
        (lp2.sum() + e2.sum() + v2.sum()).backward()
        for a, b in zip(lean.parameters(), plain.parameters(), strict=True):
            assert torch.allclose(a.grad, b.grad, atol=1e-5)
        # Positive control: other actions have other log-probabilities.
        _, lp3, _ = plain.evaluate_actions(obs, (actions + 1) % ACTIONS, action_masks=masks)
        assert not torch.allclose(lp1, lp3, atol=1e-3)
        # Without masks: the plain categorical.
        _, lp4, e4 = lean.evaluate_actions(obs, actions)
        _, lp5, e5 = plain.evaluate_actions(obs, actions)
        assert torch.allclose(lp4, lp5, atol=1e-5) and torch.allclose(e4, e5, atol=1e-5)
