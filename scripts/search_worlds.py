"""How a ``search-v2`` family bot spends its worlds: per searched decision, the worlds it played,
whether it ended undecided (an alternative ahead by the margin without the t-statistic) and
whether it changed strong's move, with the CPU time per game, for several specs side by side::

    python scripts/search_worlds.py search@v4 search@v5 --games 6 --seed 1000

Each spec plays seat 0 of the same seeded games against ``strong@v1`` at the other seats. A
decision that ends undecided at the cap is one where the worlds did not settle it and strong's
move was kept: the count the ``max_worlds`` setting trades against CPU time.
"""

from __future__ import annotations

import argparse
import collections
import time
from typing import Any

from agents import make_agent
from agents.contract.search_adaptive import SearchV2Agent
from agents.contract.view import PlayerView
from continental_env.contract.game import Game
from continental_env.rules import resolve_rules


def worlds_of(spec: str, games: int, seed: int, players: int = 4) -> dict[str, Any]:
    """Play ``games`` seeded games with ``spec`` at seat 0; its searched decisions' world counts."""
    log: list[tuple[int, bool, bool]] = []
    cpu = 0.0
    rules = resolve_rules("continental")
    for g in range(games):
        bots = [make_agent(spec if s == 0 else "strong@v1", seed * 10 + g * players + s)
                for s in range(players)]  # fmt: skip
        bot = bots[0]
        if not isinstance(bot, SearchV2Agent):
            raise ValueError(f"{spec!r} is not a search-v2 family bot (search@v2 and later)")
        evaluate = bot.evaluate

        def counted(view: PlayerView, cands: list[int], rng: Any, bot: Any = bot, ev: Any = evaluate) -> Any:  # fmt: skip
            values = ev(view, cands, rng)
            log.append((len(values[0]), bot._undecided(values), bot.choose(values) != 0))
            return values

        bot.evaluate = counted  # type: ignore[method-assign]
        game = Game.new(rules, players, seed=seed + g)
        c0 = time.process_time()
        while not game.is_over:
            game.apply(bots[game.actor].act(PlayerView(game, game.actor)))
        cpu += time.process_time() - c0
    at_cap = max((n for n, _, _ in log), default=0)
    return {
        "spec": spec,
        "searched": len(log),
        "worlds": dict(sorted(collections.Counter(n for n, _, _ in log).items())),
        "at_cap": sum(1 for n, _, _ in log if n == at_cap),
        "undecided": sum(1 for _, u, _ in log if u),
        "changed": sum(1 for _, _, c in log if c),
        "cpu_s_per_game": cpu / games,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("specs", nargs="+", help="search-v2 family specs, e.g. search@v4")
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1000)
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    rows = [worlds_of(spec, args.games, args.seed) for spec in args.specs]
    print(f"{args.games} games (seeds {args.seed}..{args.seed + args.games - 1}), the spec at "
          "seat 0, strong@v1 at the others")  # fmt: skip
    for r in rows:
        print(f"{r['spec']}: {r['searched']} searched decisions, {r['at_cap']} at the cap, "
              f"{r['undecided']} ended undecided, {r['changed']} changed strong's move, "
              f"{r['cpu_s_per_game']:.2f} CPU s per game")  # fmt: skip
        print(f"  worlds: {r['worlds']}")
    if len(rows) > 1:
        base = rows[0]["cpu_s_per_game"]
        print("CPU ratio to the first: " + ", ".join(
            f"{r['spec']} {r['cpu_s_per_game'] / base:.2f}" for r in rows[1:]))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
