"""Fit the value model of the evaluation's control variates (``agents.contract.chance``).

Plays duplicate deals of the line-ups below, exactly as ``continental evaluate`` does (every
seating), on seeds no evaluation uses (derived from ``--seed``). A seat's correction is linear in
the value's weights: the weights times the sum, over the game's stock draws, of the seat's
features as the draw fell minus their expectation (``Deviations``). So a deal's paired
correction (the candidate's seats' mean minus the opponents') is the weights times the same
combination of those sums, and the weights that make the reduced paired difference vary least are
a least-squares fit of the deal's plain paired difference on it (centred within each line-up; a
ridge penalty, chosen by cross-validation on these deals, keeps the fit from chasing noise). One weight vector serves every round. Whatever the weights,
the correction keeps its mean of zero: fitting only chooses how much variance it removes, on other
seeds than any evaluation's. A shipped model is frozen: a refit goes to a new file.

```
python scripts/fit_aivat_value.py --deals 150 --seed 7310 --jobs 2 \\
    --data runs/aivat_fit_7310.npz --out agents/models/aivat_value_v1.json
python scripts/fit_aivat_value.py --from-data runs/aivat_fit_7310.npz --out ...  # refit only
```
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from typing import Any

import numpy as np

from agents.contract.chance import FEATURES, ChanceRecorder, ValueModel, expected_features
from agents.evaluate.deals import derive_seed, lineup, observed, play_game, rotations
from agents.games import game_spec

# The tables the harness measures most: a strong bot among weak ones, strong bots together.
LINEUPS = (("strong@v1", "greedy"), ("strong@v2", "strong@v1"))
PLAYERS = 4
RIDGES = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0)  # per deal, on standardised columns


class Deviations(ChanceRecorder):
    """Sums, per seat, the features as each of the game's draws fell minus their expectation
    (no correction of its own: a value of zero). The value is linear, so a seat's correction
    under any weights is the weights times ``rows``."""

    def __init__(self, game: Any) -> None:
        super().__init__(game, ValueModel("none", {}))
        self.rows = np.zeros((game.num_players, len(FEATURES)))

    def seen(self, variants: list[list[list[float]]], copies: list[int], actual: int) -> None:
        self.rows += np.asarray(variants[actual]) - np.asarray(expected_features(variants, copies))


def play_deal(task: tuple[int, int, int]) -> tuple[int, list[float], float]:
    """Deal ``d`` of line-up ``which`` in every seating: (line-up, its paired feature
    deviations, its plain paired difference), as ``agents.evaluate`` pairs them."""
    d, seed, which = task
    spec = game_spec("contract")
    agents = LINEUPS[which]
    seatings = rotations(lineup(list(agents), PLAYERS))
    x = np.zeros(len(FEATURES))
    y = 0.0
    for k, names in enumerate(seatings):
        traced, recorders = observed(spec, Deviations)
        agent_seeds = [derive_seed(seed, "fit-agent", which, d, k, s) for s in range(PLAYERS)]
        result = play_game(names, derive_seed(seed, "fit-deal", which, d), agent_seeds, traced)
        rows = recorders[-1].rows
        mine = [s for s in range(PLAYERS) if names[s] == agents[0]]
        theirs = [s for s in range(PLAYERS) if names[s] != agents[0]]
        scores = np.asarray(result["scores"], dtype=float)
        x += rows[mine].mean(axis=0) - rows[theirs].mean(axis=0)
        y += scores[mine].mean() - scores[theirs].mean()
    return which, list(x / len(seatings)), y / len(seatings)


def collect(deals: int, seed: int, jobs: int) -> dict[str, np.ndarray]:
    """Every line-up's ``deals`` deals: line-up index, paired deviations, paired difference."""
    tasks = [(d, seed, which) for which in range(len(LINEUPS)) for d in range(deals)]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        out = list(pool.imap(play_deal, tasks, chunksize=2))
    return {
        "lineup": np.asarray([o[0] for o in out]),
        "x": np.asarray([o[1] for o in out]),
        "y": np.asarray([o[2] for o in out]),
    }


def _centred(data: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The paired deviations and differences, each centred within its line-up."""
    x, y, which = data["x"].copy(), data["y"].copy(), data["lineup"]
    for w in np.unique(which):
        x[which == w] -= x[which == w].mean(axis=0)
        y[which == w] -= y[which == w].mean()
    return x, y


def _solve(x: np.ndarray, y: np.ndarray, ridge: float) -> np.ndarray:
    """Ridge least squares on standardised columns (so one penalty fits every feature's scale),
    returned in the features' own units; a column that never varies gets weight 0."""
    scale = x.std(axis=0)
    scale[scale == 0] = np.inf
    z = x / scale
    w = np.linalg.solve(z.T @ z + ridge * len(y) * np.eye(x.shape[1]), z.T @ y)
    return w / scale


def choose_ridge(x: np.ndarray, y: np.ndarray, folds: int = 5) -> float:
    """The penalty with the least held-out variance over ``folds`` folds of the fit's deals."""
    order = np.arange(len(y)) % folds
    best, chosen = np.inf, RIDGES[0]
    for ridge in RIDGES:
        held = np.concatenate(
            [y[order == f] - x[order == f] @ _solve(x[order != f], y[order != f], ridge)
             for f in range(folds)]
        )  # fmt: skip
        if np.var(held) < best:
            best, chosen = float(np.var(held)), ridge
    return chosen


def fit(data: dict[str, np.ndarray]) -> tuple[list[float], float, dict[str, float]]:
    """The weights, the penalty chosen by cross-validation on the fit's own deals, and per
    line-up the share of per-deal variance the weights remove in sample."""
    x, y = _centred(data)
    ridge = choose_ridge(x, y)
    weights = _solve(x, y, ridge)
    which = data["lineup"]
    removed = {
        ",".join(LINEUPS[int(w)]): 1.0
        - float(np.var(y[which == w] - x[which == w] @ weights) / np.var(y[which == w]))
        for w in np.unique(which)
    }
    return [float(v) for v in weights], ridge, removed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=150, help="deals per line-up")
    parser.add_argument("--seed", type=int, default=7310)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--data", default=None, help="also save the deals' figures here (npz)")
    parser.add_argument("--from-data", default=None, help="refit from figures saved by --data")
    parser.add_argument("--out", required=True)
    parser.add_argument("--name", default="aivat_value_v1")
    args = parser.parse_args()
    start = time.process_time()
    if args.from_data:
        with np.load(args.from_data, allow_pickle=False) as saved:
            data = {key: saved[key] for key in ("lineup", "x", "y")}
            deals, seed = int(saved["deals"]), int(saved["seed"])
    else:
        data = collect(args.deals, args.seed, args.jobs)
        deals, seed = args.deals, args.seed
        if args.data:
            np.savez(args.data, deals=deals, seed=seed, **data)
    weights, ridge, removed = fit(data)
    model = {
        "about": "weights of the value whose change at each stock draw, less its expectation, "
        "corrects a seat's score (agents.contract.chance); fitted by scripts/fit_aivat_value.py "
        "on its seeds only; frozen",
        "name": args.name,
        "fit": {
            "deals_per_lineup": deals,
            "seed": seed,
            "players": PLAYERS,
            "lineups": [list(x) for x in LINEUPS],
            "ridge_per_deal": ridge,
            "variance_removed_in_sample": removed,
        },
        "features": list(FEATURES),
        "weights": {str(r): weights for r in range(1, 8)},
    }
    with open(args.out, "w") as fh:
        json.dump(model, fh, indent=1)
        fh.write("\n")
    print(json.dumps(model["fit"]), f"{time.process_time() - start:.0f} CPU s in this process")


if __name__ == "__main__":
    main()
