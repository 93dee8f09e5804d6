"""Paired differences between any two agents of an evaluation's checkpoint (JSON lines).

``continental evaluate`` pairs the candidate with each opponent; at a mixed table (``--agents
A,B,C,B``) the other pairs, e.g. ``C - B``, are as well paired: every deal is played in all
seatings, so each agent sits in every seat of the same cards. This reads the checkpoint that
``--checkpoint PATH`` wrote and prints every pair's mean per-deal difference with its 95 % t
interval and per-deal SD (positive: the first agent scored more; read the sign with the game's
direction, chips: higher is better)::

    python scripts/paired_from_checkpoint.py runs/side/fifteen_agent_decisive.jsonl

``--vs OTHER`` compares two evaluations of the same seed and line-up shape (a candidate against
the same opponents): on the deals both checkpoints hold, each candidate's difference to the
first opponent, and the difference between the two, paired by deal::

    python scripts/paired_from_checkpoint.py runs/strength/oracle_v2_19101.jsonl --vs runs/strength/s3.jsonl
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
    parser.add_argument("--vs", default="", help="another checkpoint of the same seed (see above)")
    args = parser.parse_args(argv)
    if args.vs:
        return compare(args.checkpoint, args.vs)
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


def _margins(path: str) -> tuple[dict, dict[int, float]]:
    """A checkpoint's header and, per deal index, its candidate's points minus the first
    opponent's (the candidate is the line-up's first name)."""
    with open(path) as fh:
        lines = [json.loads(line) for line in fh if line.strip()]
    header, deals = lines[0], lines[1:]
    seatings = rotations(header["lineup"])
    names = list(dict.fromkeys(header["lineup"]))
    out = {}
    for d in deals:
        p = _deal_points(d, seatings, names)
        out[d["deal"]] = p[names[0]] - p[names[1]]
    return header, out


def compare(first: str, second: str) -> int:
    """Print both candidates' margins and their paired difference on the deals both hold."""
    (h1, m1), (h2, m2) = _margins(first), _margins(second)
    if (h1["seed"], h1["game"], h1["players"]) != (h2["seed"], h2["game"], h2["players"]):
        raise SystemExit(
            f"{first} and {second} are not the same deals (seed, game or players differ)"
        )
    common = sorted(set(m1) & set(m2))
    if len(common) < 2:
        raise SystemExit(f"{first} and {second} share {len(common)} deals: too few to compare")
    xs, ys = [m1[d] for d in common], [m2[d] for d in common]
    for label, v in ((h1["lineup"][0], xs), (h2["lineup"][0], ys)):
        m, lo, hi = paired_diff_ci95(v, [0.0] * len(v))
        print(
            f"{label} - {h1['lineup'][1]}: {m:+.2f} [{lo:+.2f}, {hi:+.2f}] per game, {len(v)} deals"
        )
    m, lo, hi = paired_diff_ci95(xs, ys)
    print(
        f"({h1['lineup'][0]}) - ({h2['lineup'][0]}): {m:+.2f} [{lo:+.2f}, {hi:+.2f}], paired by deal"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
