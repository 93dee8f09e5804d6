"""CPU time of one rollout step of the policy: sb3-contrib's ``MaskableActorCriticPolicy``
against ``agents.train.kl_ppo.LeanPolicy`` (the same network and distribution), at 2 and 8
environments per forward pass, the flagship network (v1 observation, 256-256 ReLU, 1,631 actions).

    OMP_NUM_THREADS=1 python scripts/bench_policy_forward.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from agents.train.kl_ppo import LeanPolicy


def make(cls: type) -> MaskableActorCriticPolicy:
    torch.manual_seed(0)
    return cls(
        spaces.Box(-1, 1, (1827,), np.float32),
        spaces.Discrete(1631),
        lambda _: 3e-4,
        net_arch={"pi": [256, 256], "vf": [256, 256]},
        activation_fn=torch.nn.ReLU,
    )


def main() -> None:
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    for envs in (2, 8):
        obs = torch.as_tensor(rng.random((envs, 1827), dtype=np.float32))
        masks = rng.random((envs, 1631)) < 0.02
        masks[:, 0] = True
        times: dict[str, list[float]] = {"sb3-contrib": [], "lean": []}
        for _ in range(3):  # alternating passes
            for name, cls in (("sb3-contrib", MaskableActorCriticPolicy), ("lean", LeanPolicy)):
                policy = make(cls)
                with torch.no_grad():
                    for _ in range(30):
                        policy(obs, action_masks=masks)
                    start = time.process_time()
                    for _ in range(300):
                        policy(obs, action_masks=masks)
                times[name].append((time.process_time() - start) / 300 * 1e6)
        a, b = (statistics.median(times[k]) for k in ("sb3-contrib", "lean"))
        print(
            f"{envs} envs per forward: sb3-contrib {a:,.0f} us, lean {b:,.0f} us per forward "
            f"({a / b:.2f}x); per learner step {a / envs:,.0f} -> {b / envs:,.0f} us"
        )


if __name__ == "__main__":
    main()
