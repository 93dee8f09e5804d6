"""CPU time per decision: the compiled batch core (``continental_env._batch``) beside the AEC env.

Random legal actions on both. The core steps ``--lanes`` games per call and writes every lane's
v0 observation and mask; only ``core.step`` is timed (the random choice of actions is not). The
AEC side is ``continental_env.env(version=0)``, timed per decision over ``last()``, the random
choice and ``step``. CPU time is ``time.process_time``. The lay-down's arrangement is C
(``continental_env/_laydown_c.h``, ``melds.laydown_plan``'s port); only the rare fallback of
``has_contract`` calls back into Python: its share is printed beside the total.

    python scripts/bench_batch_core.py --lanes 1024 --steps 200 --aec-decisions 3000
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import continental_env
from continental_env import _batch
from continental_env.contract.batch import rules_tuple
from continental_env.melds import has_contract
from continental_env.rules import PRESETS, RuleConfig


def bench_core(
    rules: RuleConfig, p: int, lanes: int, steps: int, seed: int
) -> tuple[float, float, int]:
    """CPU seconds per decision of ``core.step`` (every lane decides once per call), the part
    of it spent in the Python callback (``has_contract``'s fallback), and the number of calls."""
    in_python = [0.0, 0]

    def timed(fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            start = time.process_time()
            try:
                return fn(*args)
            finally:
                in_python[0] += time.process_time() - start
                in_python[1] += 1

        return call

    core = _batch.Core(
        lanes,
        p,
        rules_tuple(rules, p),
        seed,
        None,  # the lay-down is chosen in C
        timed(lambda c, t, r: has_contract(c, t, r, rules)),
    )
    obs = np.zeros((lanes, core.obs_dim), np.float32)
    mask = np.zeros((lanes, core.num_actions), np.bool_)
    actor = np.zeros(lanes, np.int64)
    points = np.zeros((lanes, p), np.int32)
    final = np.zeros((lanes, p), np.int32)
    round_end = np.zeros(lanes, np.bool_)
    done = np.zeros(lanes, np.bool_)
    core.write(obs, mask, actor)
    rng = np.random.default_rng(seed)
    spent = 0.0
    for _ in range(steps):
        # A uniform legal action per lane: the largest random key among the legal ids.
        actions = np.argmax(rng.random(mask.shape) * mask, axis=1).astype(np.int64)
        start = time.process_time()
        bad = core.step(actions, obs, mask, actor, points, round_end, done, final)
        spent += time.process_time() - start
        assert bad == -1, bad
    decisions = steps * lanes
    return spent / decisions, in_python[0] / decisions, in_python[1]


def bench_aec(preset: str, p: int, decisions: int, seed: int) -> float:
    """CPU seconds per decision of the AEC v0 env with random legal actions."""
    env = continental_env.env(num_players=p, preset=preset, version=0)
    env.reset(seed=seed)
    rng = random.Random(seed)
    start = time.process_time()
    for _ in range(decisions):
        obs, _reward, term, trunc, _info = env.last()
        if term or trunc:
            env.reset(seed=rng.randrange(2**31))
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    return (time.process_time() - start) / decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="continental", choices=sorted(PRESETS))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--lanes", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--aec-decisions", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rules = PRESETS[args.preset]
    core, callbacks, calls = bench_core(rules, args.players, args.lanes, args.steps, args.seed)
    aec = bench_aec(args.preset, args.players, args.aec_decisions, args.seed)
    print(
        f"{args.preset}, {args.players} players: core.step {core * 1e6:.2f} us/decision "
        f"({args.lanes} lanes x {args.steps} steps, v0 obs and mask written), of which "
        f"{callbacks * 1e6:.2f} us in {calls} Python callbacks (has_contract's fallback); "
        f"AEC v0 env {aec * 1e6:.1f} us/decision ({args.aec_decisions} decisions); "
        f"ratio {aec / core:.1f}x"
    )


if __name__ == "__main__":
    main()
