"""The compiled batch core against the reference engine, in lockstep, on random legal play.

    python scripts/batch_lockstep.py --actions 1000000 --seed 7     # the long run
    python scripts/batch_lockstep.py --actions 20000 --lanes 8      # a quick one

Two ``BatchGame``s of the same seed, one on the compiled core and one on the reference engine
(one ``Game`` per lane), take the same random legal actions; after every step each lane's
observation, mask, actor, rewards and ``done`` are compared, and every ``--full-every`` steps the
whole position (``Game.to_dict`` of ``b.game(i)``: hands, stock order, the generator's state,
the public log, the round history, everything); the two pick the same random action from the
same uniform draw. The runs cycle through the three presets and 2-8 players, with the v0 or the
v1 observation (``--observation both`` alternates). Any difference stops the run with the lane, the step and the first field that
differs. ``tests/test_batch.py`` runs a seeded sample of this, with a positive control.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from continental_env.batch import BatchGame
from continental_env.rules import PRESETS


def tables() -> Iterator[tuple[str, int]]:
    """Every preset at every table size it allows, in a fixed order."""
    for preset, rules in PRESETS.items():
        for players in range(rules.min_players, rules.max_players + 1):
            yield preset, players


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """Where two JSON-like values first differ (a readable path), or None if equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return f"{path}.{key} (present in one only)"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return f"{path} (lengths {len(a)} and {len(b)})"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if a == b else f"{path} ({a!r} != {b!r})"


def lockstep(
    preset: str,
    players: int,
    lanes: int,
    steps: int,
    seed: int,
    full_every: int = 1,
    corrupt: Any = None,
    observation: str = "v0",
    partial: bool = False,
) -> tuple[int, str | None]:
    """(actions compared, the first difference or None). ``corrupt(compiled_batch)``, when
    given, is called once after the first step (the positive control's hook); ``partial``
    steps a random 70 % of the lanes each step (``step(actions, active=...)``)."""
    kwargs = {"seed": seed, "observation": observation}
    compiled = BatchGame(lanes, players, preset, backend="compiled", **kwargs)
    reference = BatchGame(lanes, players, preset, backend="reference", **kwargs)
    rng = np.random.default_rng(seed)
    out_c = compiled.reset()
    out_r = reference.reset()
    actions = 0
    names = ("obs", "mask", "actor", "rewards", "done")
    for step in range(steps):
        for name, x, y in zip(names, out_c, out_r, strict=False):
            if not np.array_equal(x, y):
                lane = int(np.flatnonzero((x != y).reshape(lanes, -1).any(axis=1))[0])
                return actions, f"step {step}, lane {lane}: {name} differs"
        if not np.array_equal(compiled.hidden_hands(), reference.hidden_hands()):
            return actions, f"step {step}: hidden_hands differs"
        if full_every and step % full_every == 0:
            for i in range(lanes):
                where = first_difference(compiled.game(i).to_dict(), reference.game(i).to_dict())
                if where or compiled.game_index(i) != reference.game_index(i):
                    return actions, f"step {step}, lane {i}: state{where or ' game index'}"
        uniform = rng.random(lanes)
        acts = compiled._core_sample(uniform)
        if not np.array_equal(acts, reference._core_sample(uniform)):
            return actions, f"step {step}: random_legal's picks differ"
        active = rng.random(lanes) < 0.7 if partial else None
        out_c = compiled.step(acts, active=active)
        out_r = reference.step(acts, active=active)
        actions += lanes if active is None else int(active.sum())
        if corrupt is not None and step == 0:
            corrupt(compiled)
    return actions, None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=1_000_000, help="actions in all")
    parser.add_argument("--lanes", type=int, default=16)
    parser.add_argument("--steps", type=int, default=2_000, help="steps per table")
    parser.add_argument("--full-every", type=int, default=25, help="compare whole states")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--observation", default="v0", choices=("v0", "v1", "both"))
    args = parser.parse_args(argv)
    total = 0
    start = time.process_time()
    run = 0
    while total < args.actions:
        for preset, players in tables():
            seed = args.seed * 1_000_003 + run
            run += 1
            observation = args.observation
            if observation == "both":
                observation = ("v0", "v1")[run % 2]
            n, diff = lockstep(
                preset, players, args.lanes, args.steps, seed, args.full_every, None, observation
            )
            total += n
            print(
                f"{preset:>15} {players}p {observation} seed {seed}: {n:,} actions, "
                f"{'identical' if diff is None else 'DIFFERENT: ' + diff} "
                f"({total:,} in all, {time.process_time() - start:,.0f} CPU s)",
                flush=True,
            )
            if diff is not None:
                return 1
            if total >= args.actions:
                break
    print(f"{total:,} actions in lockstep, 0 differences")
    return 0


if __name__ == "__main__":
    sys.exit(main())
