"""Label the knock ``strong`` bot's buy-back offers with the chips each answer is worth.

A buy-back is answered between hands, before the next deal: nothing hidden matters yet, only
the deals to come. So the value of ``buy`` and of ``pass`` can be measured by playing the game
to its end from the offer, with the same players, over fresh future deals: each of ``--rollouts``
draws new seeds for the hands still to come (the same seeds for both answers: common random
numbers) and plays the game out once per answer. The seat's chips at the end, buy minus pass,
averaged over the rollouts, is the label. The real game then goes on with ``strong``'s answer.

One seat plays ``strong`` (or a variant of ``scripts/knock_strong_screen.py``) against three
``greedy`` in every seating of every deal, as the screens do. One JSON line per offer: the
public inputs of the decision (own total, the total bought back to, the others' totals, pot,
cost, players in, hand number), the bot's answer, and the mean and standard error of the
buy - pass difference. A labelling and screening tool; the bots' rules come from its output.

    python scripts/knock_buy_rollouts.py --seed 25201 --deals 40 --rollouts 12 --jobs 2 \\
        --out runs/side/knock_buy_labels.jsonl
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from knock_strong_screen import Variant, parse_variant

from agents.evaluate import derive_seed, lineup, rotations
from agents.games import game_spec
from continental_env.knock.game import BUY, PASS


def play_out(state: Any, bots: list[Any], spec: Any) -> list[float]:
    """Play ``state`` to the end with ``bots``; every seat's chips."""
    while not state.is_over:
        seat = state.actor
        state.apply(bots[seat].act(spec.view(state, seat)))
    return spec.final_scores(state)


def label(
    state: Any, seat: int, bots: list[Any], spec: Any, rollouts: int, key: int
) -> list[float]:
    """buy - pass chips of ``seat`` over ``rollouts`` common-random-number play-outs."""
    diffs = []
    for k in range(rollouts):
        gen = random.Random(derive_seed(key, "rollout", k))
        future = state.state.hand_index + 1
        seeds = [gen.getrandbits(64) for _ in state.state.deal_seeds[future:]]
        chips = []
        for answer in (BUY, PASS):
            branch = copy.deepcopy(state)
            branch.state.deal_seeds[future:] = seeds
            branch.apply(answer)
            chips.append(play_out(branch, bots, spec)[seat])
        diffs.append(chips[0] - chips[1])
    return diffs


def run_deal(task: tuple[int, int, str, int]) -> list[dict[str, Any]]:
    """The labelled offers of one deal's seatings."""
    seed, deal, text, rollouts = task
    spec = game_spec("knock")
    rows = []
    for r, names in enumerate(rotations(lineup(["variant", "greedy"], 4))):
        state = spec.new_game(4, derive_seed(seed, "deal", deal), {})
        bots = [Variant(text) if n == "variant" else spec.make_agent("greedy", 0) for n in names]
        me = names.index("variant")
        while not state.is_over:
            seat = state.actor
            view = spec.view(state, seat)
            action = bots[seat].act(view)
            if seat == me and view.phase == "buy" and BUY in view.legal_actions:
                key = derive_seed(seed, "offer", deal, r, view.hand_index)
                diffs = np.array(label(state, me, bots, spec, rollouts, key))
                others = [view.scores[s] for s in range(4) if s != me and view.in_game[s]]
                rows.append({
                    "deal": deal, "rotation": r, "hand": view.hand_index,
                    "total": view.scores[me], "to": view.buy_back_total,
                    "others": sorted(others), "pot": view.pot, "cost": view.buy_cost,
                    "players_in": view.players_in, "bot_buys": action == BUY,
                    "gain": float(diffs.mean()),
                    "se": float(diffs.std(ddof=1) / np.sqrt(len(diffs))),
                })  # fmt: skip
            state.apply(action)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variant", default="default", help="the labelled seat's bot")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--first-deal", type=int, default=0)
    parser.add_argument("--rollouts", type=int, default=12)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True, help="JSON lines, appended")
    args = parser.parse_args(argv)
    try:
        parse_variant(args.variant)
    except ValueError as err:
        parser.error(str(err))
    deals = range(args.first_deal, args.first_deal + args.deals)
    tasks = [(args.seed, d, args.variant, args.rollouts) for d in deals]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with Pool(args.jobs) as pool, args.out.open("a") as out:
        for rows in pool.imap_unordered(run_deal, tasks, chunksize=1):
            for row in rows:
                out.write(json.dumps(row) + "\n")
            out.flush()
            n += len(rows)
            print(f"{n} offers labelled", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
