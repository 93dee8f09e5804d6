"""Soak: random legal play in every game and preset; every saved state reloads and continues.

    python scripts/soak_saved_states.py [--games 200] [--seed 0] [--game all|contract|fifteen|knock]

After each action the game's ``to_dict`` (through JSON) is loaded with ``from_dict``; the loaded
game must write the same dict and offer the same legal actions, and a loaded copy of the first
state, played with the same actions, must end in the same state (the same transcript). The test
suite runs a short version (``tests/test_engine_soak.py``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from continental_env import fifteen, knock
from continental_env.contract.game import Game
from continental_env.rules import PRESETS


def tables(small: bool) -> Iterator[tuple[str, Callable[[int], Any]]]:
    """(name, seed -> new game) for every game, preset and a spread of table sizes."""
    for preset in PRESETS:
        for players in (2, 3, 5) if not small else (2, 4):
            rules = PRESETS[preset]
            if small:
                rules = rules.with_rounds(rules.rounds[:2])
            yield (f"{preset} {players}p", lambda s, r=rules, p=players: Game.new(r, p, seed=s))
    for players in (2, 4, 12) if not small else (2, 3):
        opts = {"hands": 1, "max_turns_per_hand": 40} if small else {"hands": 2}
        yield (
            f"fifteen {players}p",
            lambda s, p=players, o=opts: fifteen.Game.new(num_players=p, seed=s, **o),
        )
    for players in (2, 4, 6) if not small else (2, 3):
        opts = {"max_turns_per_hand": 30, "max_hands": 4} if small else {}
        yield (
            f"knock {players}p",
            lambda s, p=players, o=opts: knock.Game.new(num_players=p, seed=s, **o),
        )


def soak_game(game: Any, seed: int, every: int = 1) -> int:
    """Play ``game`` at random to its end, reloading every ``every``-th saved state; returns the
    number of states checked. AssertionError (or the loader's ValueError) on a difference."""
    rng = random.Random(seed)
    cls = type(game)
    start = cls.from_dict(json.loads(json.dumps(game.to_dict())))
    actions: list[int] = []
    checked = 0
    while True:
        if len(actions) % every == 0 or game.is_over:
            saved = json.loads(json.dumps(game.to_dict()))
            loaded = cls.from_dict(saved)
            assert loaded.to_dict() == saved, (
                f"state after {len(actions)} actions changed on reload"
            )
            assert loaded.legal_actions() == game.legal_actions(), f"legal set after {len(actions)}"
            checked += 1
        if game.is_over:
            break
        action = rng.choice(game.legal_actions())
        game.apply(action)
        actions.append(action)
    for action in actions:  # the reloaded first state replays the same game
        start.apply(action)
    assert start.to_dict() == game.to_dict(), "a replay from the reloaded start differs"
    return checked


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per table")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--game", default="all", choices=("all", "contract", "fifteen", "knock"))
    args = parser.parse_args(argv)
    for name, new in tables(small=False):
        kind = name.split()[0]
        kind = kind if kind in ("fifteen", "knock") else "contract"
        if args.game not in ("all", kind):
            continue
        t0 = time.process_time()
        states = sum(soak_game(new(args.seed + g), args.seed + g) for g in range(args.games))
        cpu = time.process_time() - t0
        print(f"{name:>22}: {args.games} games, {states:,} saved states reloaded, {cpu:.1f} CPU s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
