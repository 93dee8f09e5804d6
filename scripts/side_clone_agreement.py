"""How often a side-game clone's top legal action is its teacher's on saved teacher decisions
(``train.py --bc-data``), overall and by kind of decision, counting a discard whose value gap
(the ``discard_gap`` feature plane of ``fifteen_v1`` / ``knock_v1``) is 0 as the teacher's too:
the teacher breaks exact ties of its own valuation by card id, which no suit-blind learner can see.

    python scripts/side_clone_agreement.py --game fifteen --model runs/X/checkpoints/last.zip \
        --data runs/side/bc_fifteen_v1_strong_30k.npz [--heldout 0.05] [--json out.json]
"""

from __future__ import annotations

import argparse
import json

from agents.bots.ppo_agent import load_agent
from agents.bots.side_policy import side_metadata
from agents.train.warm_start import load_bc_data


def kind_of(game: str, action: int) -> str:
    """A decision's kind by the teacher's action id."""
    import importlib

    rules = importlib.import_module(f"continental_env.{game}.game")
    if game == "fifteen":
        names = {rules.DRAW: "draw", rules.TAKE: "take", rules.OUT: "out"}
        if action in names:
            return names[action]
        return "out_with_discard" if action >= rules.OUT_BASE else "discard"
    names = {rules.DRAW: "draw", rules.TAKE: "take", rules.BUY: "buy", rules.PASS: "pass",
             rules.KNOCK: "announce", rules.RUMMY: "announce", rules.COLOR: "announce",
             rules.CONTINENTAL: "announce"}  # fmt: skip
    if action in names:
        return names[action]
    return "discard" if action < rules.RUMMY_BASE else "announce_with_discard"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=["fifteen", "knock"], required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--heldout", type=float, default=0.05, help="last share of the data")
    parser.add_argument("--json", default="")
    args = parser.parse_args(argv)
    import importlib

    rules = importlib.import_module(f"continental_env.{args.game}.game")
    data = load_bc_data(args.data)
    policy = load_agent(args.model)
    n = len(data["actions"])
    start = n - int(n * args.heldout) if args.heldout < 1 else 0
    v0 = side_metadata(args.game, args.players)["obs_size"]
    counts: dict[str, list[int]] = {}
    for i in range(start, n):
        obs, legal, teacher = data["obs"][i], list(data["legal"][i]), int(data["actions"][i])
        mine = policy.act_from_observation(obs, legal)
        kind = kind_of(args.game, teacher)
        same = mine == teacher
        if not same and kind == "discard" and kind_of(args.game, mine) == "discard":
            same = obs[v0 + mine - rules.DISCARD_BASE] == 0.0  # a tie of the teacher's value
        row = counts.setdefault(kind, [0, 0, 0])
        row[0] += 1
        row[1] += int(mine == teacher)
        row[2] += int(same)
    total = [sum(r[i] for r in counts.values()) for i in range(3)]
    out = {
        "decisions": total[0],
        "exact": total[1] / total[0],
        "up_to_ties": total[2] / total[0],
        "by_kind": {
            k: {"n": r[0], "exact": r[1] / r[0], "up_to_ties": r[2] / r[0]}
            for k, r in sorted(counts.items())
        },
    }
    print(json.dumps(out, indent=1))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
