"""Training throughput, like for like: MaskablePPO on PettingZoo's ``gin_rummy_v4`` and on
Continental with the same wrapper and the same settings.

    OMP_NUM_THREADS=1 python scripts/train_throughput.py [--chunk 2048] [--turns 12]

Both environments go through one wrapper in the manner of PettingZoo's SB3 action-mask
tutorial: a single learner acts for every seat in turn (self-play), the observation is the
environment's ``observation`` entry and the mask comes from ``action_mask`` through sb3-contrib's
``ActionMasker``. Both use MaskablePPO's default settings (MLP 64-64, 2,048-step rollouts,
batches of 64, 10 epochs) and one torch thread. The two learners take turns in one process,
``--chunk`` learner steps each (one rollout and its update by default), so both see the same
machine load; a figure is learner steps per second over a turn, updates included. Each line is
one pair of turns and its ratio; the last line the medians.

Needs the ``train`` extra, RLCard and a PettingZoo that still ships ``gin_rummy_v4``: PettingZoo
1.25.0 is the last (1.27 removed it), and this project runs on it too, so a separate virtualenv
does it:

    python3 -m venv /tmp/venv-gin
    grep -v '^pettingzoo' constraints.txt > /tmp/constraints-gin.txt
    /tmp/venv-gin/bin/pip install -c /tmp/constraints-gin.txt -e ".[train]" \
        "pettingzoo[classic]==1.25.0"
    OMP_NUM_THREADS=1 /tmp/venv-gin/bin/python scripts/train_throughput.py
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from typing import Any

import gymnasium
import numpy as np
from pettingzoo.utils import BaseWrapper


class SelfPlayMasked(BaseWrapper, gymnasium.Env):
    """An AEC environment as a single-agent gymnasium env: the learner plays every seat.

    ``step`` returns the next actor's observation with the reward, termination and info of the
    seat that just acted; ``action_mask`` is the next actor's mask (all seats share one
    observation and action space).
    """

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        super().reset(seed=seed, options=options)
        first = self.possible_agents[0]
        self.observation_space = super().observation_space(first)["observation"]
        self.action_space = super().action_space(first)
        return self.observe(self.agent_selection), {}

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict]:
        actor = self.agent_selection
        super().step(action)
        return (
            self.observe(self.agent_selection),
            self._cumulative_rewards[actor],
            self.terminations[actor],
            self.truncations[actor],
            self.infos[actor],
        )

    def observe(self, agent: str) -> Any:
        return super().observe(agent)["observation"]

    def action_mask(self) -> np.ndarray:
        return super().observe(self.agent_selection)["action_mask"]


def make(name: str) -> gymnasium.Env:
    """The wrapped environment ``gin_rummy`` (PettingZoo's v4) or ``continental`` (4 players)."""
    from sb3_contrib.common.wrappers import ActionMasker

    if name == "gin_rummy":
        from pettingzoo.classic import gin_rummy_v4

        aec = gin_rummy_v4.env()
    else:
        import continental_env

        aec = continental_env.env(num_players=4)
    return ActionMasker(SelfPlayMasked(aec), lambda env: env.action_mask())


def new_model(name: str, seed: int) -> Any:
    """MaskablePPO with its default settings on the wrapped ``name``."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    env = make(name)
    env.reset(seed=seed)
    return MaskablePPO(MaskableActorCriticPolicy, env, seed=seed, verbose=0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--chunk", type=int, default=2048, help="learner steps per turn (one rollout + update)"
    )
    parser.add_argument("--turns", type=int, default=12, help="turns per environment")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.chunk < 1 or args.turns < 1:
        parser.error("--chunk and --turns must be at least 1")
    try:
        import sb3_contrib  # noqa: F401
        import torch
        from pettingzoo.classic import gin_rummy_v4  # noqa: F401  (runs on RLCard)
    except (ImportError, AttributeError) as exc:
        print(f"gin_rummy_v4 or MaskablePPO is unavailable ({exc}); see this script's docstring")
        return 1
    torch.set_num_threads(1)
    print(
        f"python {platform.python_version()}, torch {torch.__version__} on 1 thread "
        f"(OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}), MaskablePPO defaults, "
        f"{args.turns} alternating turns of {args.chunk:,} learner steps each, "
        f"load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    models = {name: new_model(name, args.seed) for name in ("gin_rummy", "continental")}
    rates: dict[str, list[float]] = {name: [] for name in models}
    ratios = []
    for turn in range(args.turns):
        for name, model in models.items():
            before = model.num_timesteps
            start = time.perf_counter()
            model.learn(total_timesteps=args.chunk, reset_num_timesteps=False)
            rates[name].append((model.num_timesteps - before) / (time.perf_counter() - start))
        ratios.append(rates["continental"][-1] / rates["gin_rummy"][-1])
        print(
            f"turn {turn + 1}: gin_rummy {rates['gin_rummy'][-1]:>6,.0f} steps/s, continental "
            f"{rates['continental'][-1]:>6,.0f} steps/s, ratio {ratios[-1]:.2f}x "
            f"(load {os.getloadavg()[0]:.1f})",
            flush=True,
        )
    gin = statistics.median(rates["gin_rummy"])
    ours = statistics.median(rates["continental"])
    print(
        f"medians: gin_rummy_v4 {gin:,.0f} steps/s, continental (4 players) {ours:,.0f} "
        f"steps/s; ratio (median of the turns' ratios) {statistics.median(ratios):.2f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
