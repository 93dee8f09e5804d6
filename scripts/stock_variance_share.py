"""How much of a paired result's per-deal variance comes from the stock's order.

Plays each duplicate deal (every seating, as ``continental evaluate``) several times with the same
hands and up-cards but the stock of every round shuffled again (``--replicates``), and splits the
variance of the per-deal paired difference into the part within a deal (the stock's order: what
corrections at the stock's draws can remove, with a perfect value) and the rest. The share within
is the ceiling of ``continental evaluate --variance aivat``: a width ratio of at best
``sqrt(1 - share)``.

```
python scripts/stock_variance_share.py --agents strong@v1,greedy --deals 30 --replicates 4 --seed 5
```
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
from typing import Any

from agents.evaluate.deals import derive_seed, lineup, play_game, rotations
from agents.games import game_spec


def restocked(seed: int, replicate: int) -> Any:
    """The contract game with every round's stock shuffled again by ``replicate``'s own
    generator after the deal (hands and up-card unchanged)."""
    spec = game_spec("contract")

    def new_game(players: int, game_seed: int | None, options: dict[str, Any]) -> Any:
        game = spec.new_game(players, game_seed, options)
        deal = game._deal

        def shuffle() -> None:
            rng = random.Random(derive_seed(seed, "restock", game_seed, game.state.round_index,
                                            replicate))  # fmt: skip
            rng.shuffle(game.state.stock)

        def redeal() -> None:
            deal()
            shuffle()

        game._deal = redeal  # later rounds: an instance attribute, this game only
        shuffle()  # the first round, dealt already
        return game

    return dataclasses.replace(spec, new_game=new_game)


def paired(agents: list[str], deal: int, seed: int, replicate: int) -> float:
    """The deal's paired difference (candidate minus the others), its stock reshuffled."""
    spec = restocked(seed, replicate)
    diffs = []
    for k, names in enumerate(rotations(lineup(agents, 4))):
        agent_seeds = [derive_seed(seed, "agent", deal, k, s) for s in range(4)]
        scores = play_game(names, derive_seed(seed, "deal", deal), agent_seeds, spec)["scores"]
        mine = [scores[s] for s in range(4) if names[s] == agents[0]]
        theirs = [scores[s] for s in range(4) if names[s] != agents[0]]
        diffs.append(statistics.fmean(mine) - statistics.fmean(theirs))
    return statistics.fmean(diffs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", default="strong@v1,greedy")
    parser.add_argument("--deals", type=int, default=30)
    parser.add_argument("--replicates", type=int, default=4)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    agents = args.agents.split(",")
    table = [
        [paired(agents, d, args.seed, r) for r in range(args.replicates)] for d in range(args.deals)
    ]
    within = statistics.fmean(statistics.variance(row) for row in table)
    total = statistics.variance([x for row in table for x in row])
    print(
        f"{args.agents}, {args.deals} deals x {args.replicates} stocks (seed {args.seed}): "
        f"per-deal variance {total:.0f}, within a deal (the stock's order) {within:.0f}, "
        f"share {within / total:.2f}; best width ratio sqrt(1 - share) = "
        f"{(max(0.0, 1 - within / total)) ** 0.5:.2f}"
    )


if __name__ == "__main__":
    main()
