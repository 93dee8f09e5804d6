"""Build and check the search's belief table (``agents.contract.beliefs``).

``build``: plays games of four ``strong@v1`` players and, at the start of every turn, compares
each opponent's real distance to the contract with the distance of the hand the uniform sampler
deals it from the turn's seat's view; writes the per-(round, stage) likelihood ratios of the
distance (add-one smoothed histograms) to a JSON table.

``check``: on other games, the mean distance and the share of hands within one card of the
contract, real against the uniform sampler against the resampled one (``--candidates`` deals),
overall and per round: the calibration the table buys; the same for the excess partners of the
history table (``--history``), and how many unknown cards the dealt hands share with the real.

    python scripts/belief_calibration.py build --games 300 --seed 19301 \\
        --out agents/models/belief_distance_v1.json
    python scripts/belief_calibration.py check --games 100 --seed 19302 --candidates 8
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections.abc import Callable
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np

from agents.contract.beliefs import (
    EXCESS_BINS,
    EXCESS_EDGES,
    MAX_DISTANCE,
    STAGES,
    BeliefSampler,
    distance_bin,
    excess_bin,
    excess_partners,
    load_table,
    stage,
)
from agents.contract.sampler import PublicInfo, deal_hidden
from agents.contract.view import PlayerView
from agents.evaluate import derive_seed
from agents.registry import make_agent
from continental_env.contract.game import Game

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
    """Histograms [real/sampled, round-1, stage, distance bin, excess bin] of one game; the last
    excess column counts the hands without a history (a seat that has shown nothing)."""
    seed, g = task
    hist = np.zeros((2, 7, STAGES, BINS, EXCESS_BINS + 1), dtype=np.int64)
    rng = random.Random(derive_seed(seed, "sample", g))
    for game, info in positions(seed, g):
        dealt, _stock = deal_hidden(info, rng)
        st = stage(info.turn)
        for s in range(4):
            if s == info.seat or info.laid_down[s]:
                continue
            for k, counts in enumerate((list(game.state.hands[s]), dealt[s])):
                d = distance_bin(counts, info.round, info.rules)
                hist[k, info.round - 1, st, d, _excess_column(info, s, counts)] += 1
    return hist


def _excess_column(info: PublicInfo, seat: int, counts: list[int]) -> int:
    excess = excess_partners(info, seat, counts)
    return EXCESS_BINS if excess is None else excess_bin(excess)


def check_one(task: tuple[int, int, int, str, bool]) -> list[tuple[float, ...]]:
    """(round, real, uniform, resampled) distance bins, then the same three excess partners
    (nan without a history), then the unknown cards the uniform and the resampled hand share
    with the real one, of every opponent at every turn."""
    seed, g, candidates, table, history = task
    rng = random.Random(derive_seed(seed, "sample", g))
    belief = BeliefSampler(candidates, load_table(table) if table else None, history=history)
    rows = []
    for game, info in positions(seed, g):
        uniform, _ = deal_hidden(info, rng)
        weighted, _ = belief.deal(info, rng)
        for s in range(4):
            if s == info.seat or info.laid_down[s]:
                continue
            hands = (list(game.state.hands[s]), uniform[s], weighted[s])
            excess = [excess_partners(info, s, h) for h in hands]
            rows.append((
                info.round,
                *(distance_bin(h, info.round, info.rules) for h in hands),
                *(math.nan if x is None else x for x in excess),
                *(_shared(hands[0], h, info.known[s]) for h in hands[1:]),
            ))  # fmt: skip
    return rows


def _map(fn: Callable[[Any], Any], tasks: list[Any], jobs: int) -> list[Any]:
    """``fn`` over ``tasks``, in ``jobs`` worker processes (in this one for 1)."""
    if jobs <= 1:
        return [fn(t) for t in tasks]
    with Pool(jobs) as pool:
        return list(pool.imap_unordered(fn, tasks))


def _ratios(hist: np.ndarray) -> list[float]:
    """Add-one smoothed real/uniform histogram ratios (``hist[0]`` real, ``hist[1]`` uniform)."""
    real = hist[0] + 1.0
    samp = hist[1] + 1.0
    return [round(float(x), 4) for x in (real / real.sum()) / (samp / samp.sum())]


def _shared(real: list[int], dealt: list[int], known: tuple[int, ...]) -> int:
    """Unknown cards a dealt hand has in common with the real one (copies counted)."""
    return sum(min(r, d) - k for r, d, k in zip(real, dealt, known, strict=True))


def build(args: argparse.Namespace) -> int:
    hist = sum(_map(build_one, [(args.seed, g) for g in range(args.games)], args.jobs))
    ratios: dict[str, dict[str, list[float]]] = {}
    joint: dict[str, dict[str, list[list[float]]]] = {}
    for r in range(7):
        ratios[str(r + 1)] = {}
        joint[str(r + 1)] = {}
        for st in range(STAGES):
            ratios[str(r + 1)][str(st)] = _ratios(hist[:, r, st].sum(axis=-1))
            grid = _ratios(hist[:, r, st, :, :EXCESS_BINS].reshape(2, -1))
            joint[str(r + 1)][str(st)] = [
                grid[d * EXCESS_BINS : (d + 1) * EXCESS_BINS] for d in range(BINS)
            ]
    data = {
        "about": "likelihood ratio real/uniform of an opponent's distance to the contract, "
        "per round and stage (agents.contract.beliefs); built by scripts/belief_calibration.py; "
        "frozen once a version reads it: a rebuilt table goes to a new file",
        "players": 4,
        "preset": "continental",
        "games": args.games,
        "seed": args.seed,
        "hands": int(hist[0].sum()),
        "counts": {"real": hist[0].sum(axis=-1).tolist(), "uniform": hist[1].sum(axis=-1).tolist()},
        "ratios": ratios,
    }
    if args.history:
        data["about"] = (
            "likelihood ratios real/uniform of an opponent's distance to the contract, and "
            "jointly of its distance bin and excess-partners bin (joint), per round and stage "
            "(agents.contract.beliefs); built by scripts/belief_calibration.py build --history; "
            "frozen once a version reads it: a rebuilt table goes to a new file"
        )
        data["excess_edges"] = list(EXCESS_EDGES)
        data["joint_counts"] = {"real": hist[0].tolist(), "uniform": hist[1].tolist()}
        data["joint"] = joint
    args.out.write_text(json.dumps(data) + "\n")
    print(f"{int(hist[0].sum())} opponent-turn observations, {args.games} games -> {args.out}")
    return 0


def check(args: argparse.Namespace) -> int:
    tasks = [(args.seed, g, args.candidates, args.table, args.history) for g in range(args.games)]
    rows = np.array([r for rows in _map(check_one, tasks, args.jobs) for r in rows])
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
    print("round   n    mean excess partners (hands with a history): real / uniform / resampled")
    for r in [*range(1, 8), 0]:
        sel = rows if r == 0 else rows[rows[:, 0] == r]
        sel = sel[~np.isnan(sel[:, 4])]
        if len(sel) == 0:
            continue
        means = " / ".join(f"{sel[:, k].mean():+.2f}" for k in (4, 5, 6))
        print(f"{'all' if r == 0 else r:>5} {len(sel):5d}    {means:>28s}")
    print("round   n    unknown cards shared with the real hand: uniform / resampled")
    for r in [*range(1, 8), 0]:
        sel = rows if r == 0 else rows[rows[:, 0] == r]
        if len(sel):
            shared = " / ".join(f"{sel[:, k].mean():.3f}" for k in (7, 8))
            print(f"{'all' if r == 0 else r:>5} {len(sel):5d}    {shared:>28s}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out", type=Path, required=True)
    b.add_argument("--history", action="store_true", help="also the joint distance x excess table")
    c = sub.add_parser("check")
    c.add_argument("--candidates", type=int, default=8)
    c.add_argument(
        "--table", default="", help="a packaged table's file name (default: search@v3's)"
    )
    c.add_argument(
        "--history", action="store_true", help="resample with the joint table (build --history)"
    )
    for p in (b, c):
        p.add_argument("--games", type=int, default=100)
        p.add_argument("--seed", type=int, required=True)
        p.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    return build(args) if args.cmd == "build" else check(args)


if __name__ == "__main__":
    sys.exit(main())
