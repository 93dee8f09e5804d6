"""CPU time and a digest of every decision of seeded side-game games (``strong`` and ``greedy``).

Run it on two checkouts to show a speed-up that keeps every decision (equal digests)::

    git archive 36da32b agents continental_env | (mkdir -p /tmp/before && tar -x -C /tmp/before)
    PYTHONPATH=/tmp/before python scripts/side_bot_speed.py --game knock --games 4
    PYTHONPATH=. python scripts/side_bot_speed.py --game knock --games 4
"""

from __future__ import annotations

import argparse
import hashlib
import time

from agents.evaluate import derive_seed
from agents.games import game_spec


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", choices=("fifteen", "knock"), required=True)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a game option, e.g. hands=1 (fifteen) or max_hands=1 (knock)")  # fmt: skip
    args = parser.parse_args(argv)
    options = {k: int(v) for k, v in (item.split("=", 1) for item in args.set)}
    spec = game_spec(args.game)
    digest = hashlib.sha256()
    decisions = 0
    cpu = time.process_time()
    for g in range(args.games):
        names = (
            ["strong", "greedy", "strong", "greedy"]
            if g % 2
            else ["greedy", "strong", "greedy", "greedy"]
        )
        state = spec.new_game(4, derive_seed(77, g), dict(options))
        bots = [spec.make_agent(name, s) for s, name in enumerate(names)]
        while not state.is_over:
            action = bots[state.actor].act(spec.view(state, state.actor))
            digest.update(action.to_bytes(2, "little"))
            decisions += 1
            state.apply(action)
    cpu = time.process_time() - cpu
    print(
        f"{args.game} {options or 'full games'}: {args.games} games, {decisions} decisions, "
        f"digest {digest.hexdigest()[:16]}, {cpu:.1f} CPU s, {decisions / cpu:.0f} decisions/CPU s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
