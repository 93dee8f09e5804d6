"""Build and check the search's belief table (``agents.bots.beliefs``).

``build``: plays games of four ``strong@v1`` players and, at the start of every turn, compares
each opponent's real distance to the contract with the distance of the hand the uniform sampler
deals it from the turn's seat's view; writes the per-(round, stage) likelihood ratios of the
distance (add-one smoothed histograms) to a JSON table.

``check``: on other games, the mean distance and the share of hands within one card of the
contract, real against the uniform sampler against the resampled one (``--candidates`` deals),
overall and per round: the calibration the table buys.

    python scripts/belief_calibration.py build --games 300 --seed 19301 \\
        --out agents/models/belief_distance_v1.json
    python scripts/belief_calibration.py check --games 100 --seed 19302 --candidates 8
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from agents.bots.base import PlayerView
from agents.bots.beliefs import MAX_DISTANCE, STAGES, BeliefSampler, distance_bin, load_table, stage
from agents.bots.sampler import PublicInfo, deal_hidden
from agents.evaluate import derive_seed
from agents.registry import make_agent
from continental_env.game import Game

BINS = MAX_DISTANCE + 1


def positions(seed: int, game_index: int):  # type: ignore[no-untyped-def]
    """(game, public info of the seat to act) at the start of every turn of one game."""
    game = Game.new("continental", 4, seed=derive_seed(seed, "game", game_index))
    bots = [make_agent("strong@v1", s) for s in range(4)]
    while not game.is_over:
        seat = game.actor
        view = PlayerView(game, seat)
        if game.phase == "draw":
            yield game, PublicInfo.from_view(view)
        game.apply(bots[seat].act(view))


def build_one(task: tuple[int, int]) -> np.ndarray:
    """Histograms [real/sampled, round-1, stage, bin] of one game."""
    seed, g = task
    hist = np.zeros((2, 7, STAGES, BINS), dtype=np.int64)
    rng = random.Random(derive_seed(seed, "sample", g))
    for game, info in positions(seed, g):
        dealt, _stock = deal_hidden(info, rng)
        st = stage(info.turn)
        for s in range(4):
            if s == info.seat or info.laid_down[s]:
                continue
            real = distance_bin(list(game.state.hands[s]), info.round, info.rules)
            hist[0, info.round - 1, st, real] += 1
            hist[1, info.round - 1, st, distance_bin(dealt[s], info.round, info.rules)] += 1
    return hist


def check_one(task: tuple[int, int, int, str]) -> list[tuple[int, int, int, int]]:
    """(round, real, uniform, resampled) distance bins of every opponent at every turn."""
    seed, g, candidates, table = task
    rng = random.Random(derive_seed(seed, "sample", g))
    belief = BeliefSampler(candidates, load_table(table) if table else None)
    rows = []
    for game, info in positions(seed, g):
        uniform, _ = deal_hidden(info, rng)
        weighted, _ = belief.deal(info, rng)
        for s in range(4):
            if s == info.seat or info.laid_down[s]:
                continue
            rows.append((
                info.round,
                distance_bin(list(game.state.hands[s]), info.round, info.rules),
                distance_bin(uniform[s], info.round, info.rules),
                distance_bin(weighted[s], info.round, info.rules),
            ))  # fmt: skip
    return rows


def build(args: argparse.Namespace) -> int:
    with Pool(args.jobs) as pool:
        hist = sum(pool.imap_unordered(build_one, [(args.seed, g) for g in range(args.games)]))
    ratios: dict[str, dict[str, list[float]]] = {}
    for r in range(7):
        ratios[str(r + 1)] = {}
        for st in range(STAGES):
            real = hist[0, r, st] + 1.0
            samp = hist[1, r, st] + 1.0
            w = (real / real.sum()) / (samp / samp.sum())
            ratios[str(r + 1)][str(st)] = [round(float(x), 4) for x in w]
    data = {
        "about": "likelihood ratio real/uniform of an opponent's distance to the contract, "
        "per round and stage (agents.bots.beliefs); built by scripts/belief_calibration.py; "
        "frozen once a version reads it: a rebuilt table goes to a new file",
        "players": 4,
        "preset": "continental",
        "games": args.games,
        "seed": args.seed,
        "hands": int(hist[0].sum()),
        "counts": {"real": hist[0].tolist(), "uniform": hist[1].tolist()},
        "ratios": ratios,
    }
    args.out.write_text(json.dumps(data) + "\n")
    print(f"{int(hist[0].sum())} opponent-turn observations, {args.games} games -> {args.out}")
    return 0


def check(args: argparse.Namespace) -> int:
    tasks = [(args.seed, g, args.candidates, args.table) for g in range(args.games)]
    with Pool(args.jobs) as pool:
        rows = np.array([r for rows in pool.imap_unordered(check_one, tasks) for r in rows])
    print(f"{len(rows)} opponent hands, {args.games} games, {args.candidates} candidates")
    print(
        "round   n    mean distance real / uniform / resampled   within 1: real / uniform / resampled"
    )
    for r in [*range(1, 8), 0]:
        sel = rows if r == 0 else rows[rows[:, 0] == r]
        if len(sel) == 0:
            continue
        means = " / ".join(f"{sel[:, k].mean():.2f}" for k in (1, 2, 3))
        near = " / ".join(f"{(sel[:, k] <= 1).mean():.2f}" for k in (1, 2, 3))
        print(f"{'all' if r == 0 else r:>5} {len(sel):5d}    {means:>28s}            {near}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("check")
    c.add_argument("--candidates", type=int, default=8)
    c.add_argument(
        "--table", default="", help="a packaged table's file name (default: search@v3's)"
    )
    for p in (b, c):
        p.add_argument("--games", type=int, default=100)
        p.add_argument("--seed", type=int, required=True)
        p.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    return build(args) if args.cmd == "build" else check(args)


if __name__ == "__main__":
    sys.exit(main())
