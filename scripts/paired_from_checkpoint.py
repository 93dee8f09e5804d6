"""Paired differences between any two agents of an evaluation's checkpoint (JSON lines).

``continental evaluate`` pairs the candidate with each opponent; at a mixed table (``--agents
A,B,C,B``) the other pairs, e.g. ``C - B``, are as well paired: every deal is played in all
seatings, so each agent sits in every seat of the same cards. This reads the checkpoint that
``--checkpoint PATH`` wrote and prints every pair's mean per-deal difference with its 95 % t
interval and per-deal SD (positive: the first agent scored more; read the sign with the game's
direction, chips: higher is better)::

    python scripts/paired_from_checkpoint.py runs/side/fifteen_agent_decisive.jsonl
"""

from __future__ import annotations

import argparse
import json
from itertools import combinations

from agents.evaluate.aggregate import deal_points as _deal_points
from agents.evaluate.deals import rotations
from agents.evaluate.stats import paired_diff_ci95, sample_sd


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--json", default="", help="also write the pairs here")
    args = parser.parse_args(argv)
    with open(args.checkpoint) as fh:
        lines = [json.loads(line) for line in fh if line.strip()]
    header, deals = lines[0], lines[1:]
    seatings = rotations(header["lineup"])
    names = list(dict.fromkeys(header["lineup"]))
    points = [_deal_points(d, seatings, names) for d in deals]
    out = {"checkpoint": args.checkpoint, "lineup": header["lineup"], "seed": header["seed"],
           "game": header["game"], "options": header.get("options"), "deals": len(deals), "pairs": {}}  # fmt: skip
    for a, b in combinations(names, 2):
        xs, ys = [p[a] for p in points], [p[b] for p in points]
        m, lo, hi = paired_diff_ci95(xs, ys)
        sd = sample_sd([x - y for x, y in zip(xs, ys, strict=True)]) if len(xs) > 1 else 0.0
        out["pairs"][f"{a} - {b}"] = {"mean_diff": m, "ci95": [lo, hi], "sd_per_deal": sd}
        print(
            f"{a} - {b}: {m:+.2f} [{lo:+.2f}, {hi:+.2f}] per game, per-deal SD {sd:.1f}, {len(xs)} deals"
        )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
