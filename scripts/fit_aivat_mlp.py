"""Fit a small network as the value of the evaluation's control variates (``agents.contract.chance``).

The linear value (``aivat_value_v1``) removes about a fifth of the per-deal variance, though
nearly all of it comes from the stock's order. This script learns a value that tracks a round's
outcome more closely: a two-layer network reading the linear value's own features of a seat and
the round, regressed on the points the seat ends the round with, at every stock draw of duplicate
deals played on seeds no evaluation uses. Then one more least-squares step (as
``fit_aivat_value.py``) mixes the network's correction with the linear features' to make the
paired difference vary least. The value is a fixed function once frozen, so the correction keeps
its mean of zero whatever the fit did; fitting only chooses how much variance it removes.

```
python scripts/fit_aivat_mlp.py collect --deals 120 --seed 7330 --jobs 2 --out runs/aivat_mlp_fit
python scripts/fit_aivat_mlp.py collect --deals 60 --seed 7331 --jobs 2 --out runs/aivat_mlp_hold
python scripts/fit_aivat_mlp.py fit --data runs/aivat_mlp_fit --holdout runs/aivat_mlp_hold \\
    --out agents/models/aivat_value_v2.json
python scripts/fit_aivat_mlp.py compare --data runs/aivat_mlp_hold   # v1 and v2 side by side
```

Each deal's file (``collect``) holds, per game of its seatings, every draw's features of every
seat after each card type the stock could give (those that leave the receiver alike once), their
probabilities, which one fell, and each seat's points at the end of that draw's round: data
(``numpy.savez``), read back without pickle.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.contract.chance import (
    FEATURES,
    ChanceRecorder,
    MlpValueModel,
    ValueModel,
    load_model,
)
from agents.evaluate.deals import derive_seed, lineup, observed, play_game, rotations
from agents.games import game_spec

# The tables the harness measures most: a strong bot among weak ones, strong bots together, the
# shipped network against the reference.
LINEUPS = (
    ("strong@v1", "greedy"),
    ("strong@v2", "strong@v1"),
    ("ppo:selfplay7_continental_4p", "strong@v1"),
)
PLAYERS = 4
ROUNDS = 7
NF = len(FEATURES)


class Logger(ChanceRecorder):
    """Keeps, per stock draw of one game, every seat's features after each distinct outcome, the
    outcomes' probabilities and which one fell (no correction: a value of zero)."""

    def __init__(self, game: Any) -> None:
        super().__init__(game, ValueModel("none", {}))
        self.draws: list[tuple[int, np.ndarray, np.ndarray, int]] = []

    def seen(self, variants: list[list[list[float]]], copies: list[int], actual: int) -> None:
        probs = np.asarray(copies, np.float64) / sum(copies)
        rows = np.asarray(variants, np.float32)
        state = self.game.state
        # the round index names the round's points (round_history); the model's one-hot reads
        # the round number less one: the same in the preset played here (rounds 1..7 in order)
        assert state.round == state.round_index + 1, "a preset whose rounds are not 1..7"
        self.draws.append((state.round_index, rows, probs, actual))


def play_deal(task: tuple[int, int, int, str]) -> str:
    """Deal ``d`` of line-up ``which`` in every seating, saved to one file in ``out``."""
    d, seed, which, out = task
    Path(out).mkdir(parents=True, exist_ok=True)
    path = Path(out) / f"deal_{seed}_{which}_{d:05d}.npz"  # a folder may hold several seeds
    if path.exists():
        return str(path)
    spec = game_spec("contract")
    agents = LINEUPS[which]
    arrays: dict[str, list] = {k: [] for k in ("game", "round", "nvar", "probs", "actual", "x")}
    targets, mine_masks, scores = [], [], []
    for k, names in enumerate(rotations(lineup(list(agents), PLAYERS))):
        traced, loggers = observed(spec, Logger)
        agent_seeds = [derive_seed(seed, "mlp-agent", which, d, k, s) for s in range(PLAYERS)]
        result = play_game(names, derive_seed(seed, "mlp-deal", which, d), agent_seeds, traced)
        history = loggers[-1].game.state.round_history
        for rnd, rows, probs, actual in loggers[-1].draws:
            arrays["game"].append(k)
            arrays["round"].append(rnd)
            arrays["nvar"].append(len(rows))
            arrays["probs"].append(probs)
            arrays["actual"].append(actual)
            arrays["x"].append(rows.reshape(-1, NF))
            targets.append(history[rnd]["points"])
        mine_masks.append([names[s] == agents[0] for s in range(PLAYERS)])
        scores.append(result["scores"])
    np.savez(
        path.with_suffix(".tmp.npz"),
        lineup=which,
        game=np.asarray(arrays["game"], np.int8),
        round=np.asarray(arrays["round"], np.int8),
        nvar=np.asarray(arrays["nvar"], np.int16),
        probs=np.concatenate(arrays["probs"]),
        actual=np.asarray(arrays["actual"], np.int16),
        x=np.concatenate(arrays["x"]).astype(np.float16),
        target=np.asarray(targets, np.float32),
        mine=np.asarray(mine_masks, bool),
        scores=np.asarray(scores, np.float32),
    )
    os.replace(path.with_suffix(".tmp.npz"), path)
    return str(path)


def collect(deals: int, seed: int, jobs: int, out: str) -> None:
    """Play and save every line-up's ``deals`` deals (files already there are kept: resumable)."""
    Path(out).mkdir(parents=True, exist_ok=True)
    tasks = [(d, seed, which, out) for which in range(len(LINEUPS)) for d in range(deals)]
    start = time.time()
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for i, _path in enumerate(pool.imap_unordered(play_deal, tasks), 1):
            if i % 20 == 0 or i == len(tasks):
                print(f"{i}/{len(tasks)} deals, {time.time() - start:.0f} s", flush=True)


# ----------------------------------------------------------------------------- data


@dataclasses.dataclass
class Deal:
    """One deal's draws in every seating."""

    lineup: int
    game: np.ndarray  # per event: its seating
    round: np.ndarray  # per event: round index
    nvar: np.ndarray  # per event: distinct outcomes
    probs: np.ndarray  # per outcome
    actual: np.ndarray  # per event: index of the outcome that fell
    x: np.ndarray  # per outcome and seat: features (outcomes x seats, NF), float16 as saved
    target: np.ndarray  # per event and seat: the seat's points at the round's end
    mine: np.ndarray  # per seating and seat: the candidate's seats
    scores: np.ndarray  # per seating and seat: the game's points

    @property
    def plain(self) -> float:
        """The deal's plain paired difference (candidate's seats minus the others')."""
        return _paired(self.scores, self.mine)


def _paired(per_seat: np.ndarray, mine: np.ndarray) -> float:
    """Mean over seatings of the candidate's seats' mean minus the others'."""
    diffs = [per_seat[k][mine[k]].mean() - per_seat[k][~mine[k]].mean() for k in range(len(mine))]
    return float(np.mean(diffs))


def load(folder: str) -> list[Deal]:
    """Every deal file of ``folder``, in name order."""
    deals = []
    for path in sorted(Path(folder).glob("deal_*_*.npz")):
        if path.name.endswith(".tmp.npz"):
            continue
        with np.load(path, allow_pickle=False) as f:
            deals.append(
                Deal(int(f["lineup"]), f["game"], f["round"], f["nvar"], f["probs"], f["actual"],
                     f["x"], f["target"], f["mine"], f["scores"])
            )  # fmt: skip
    return deals


def _offsets(deal: Deal) -> tuple[np.ndarray, np.ndarray]:
    """Per event, the index of its first outcome and of the outcome that fell."""
    first = np.concatenate([[0], np.cumsum(deal.nvar)[:-1]])
    return first, first + deal.actual


def supervised_rows(deals: list[Deal]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The table as each draw fell, per seat: features, round index, the round's points."""
    xs, rs, ys = [], [], []
    for deal in deals:
        _first, fell = _offsets(deal)
        x = deal.x.reshape(-1, PLAYERS, NF)[fell]
        xs.append(x.reshape(-1, NF).astype(np.float32))
        rs.append(np.repeat(deal.round, PLAYERS))
        ys.append(deal.target.reshape(-1))
    return np.concatenate(xs), np.concatenate(rs), np.concatenate(ys)


def corrections(deal: Deal, values: np.ndarray) -> np.ndarray:
    """Per seating and seat, the sum over draws of V(as it fell) - E[V]; ``values`` holds V of
    every (outcome, seat) row of ``deal.x``, or rows of several columns (one correction each)."""
    v = values.reshape(len(deal.probs), PLAYERS, -1)
    first, fell = _offsets(deal)
    expected = np.add.reduceat(v * deal.probs[:, None, None], first, axis=0)
    dev = v[fell] - expected  # events x seats x columns
    out = np.zeros((len(deal.mine), PLAYERS, v.shape[2]))
    np.add.at(out, deal.game.astype(int), dev)
    return out


def paired_columns(deal: Deal, values: np.ndarray) -> np.ndarray:
    """The deal's paired correction for each column of ``values``."""
    corr = corrections(deal, values)
    return np.array([_paired(corr[:, :, j], deal.mine) for j in range(corr.shape[2])])


# ----------------------------------------------------------------------------- the network


def train_network(x: np.ndarray, r: np.ndarray, y: np.ndarray, hidden: int, epochs: int,
                  seed: int) -> dict[str, Any]:  # fmt: skip
    """Regress the round's points on the features and the round (torch, CPU)."""
    import torch

    torch.manual_seed(seed)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    inputs = torch.tensor(np.concatenate([(x - mean) / scale, np.eye(ROUNDS)[r]], axis=1),
                          dtype=torch.float32)  # fmt: skip
    target = torch.tensor(y, dtype=torch.float32)
    net = torch.nn.Sequential(
        torch.nn.Linear(inputs.shape[1], hidden), torch.nn.ReLU(),
        torch.nn.Linear(hidden, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1),
    )  # fmt: skip
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(seed)
    batch = 2048
    for epoch in range(epochs):
        order = torch.randperm(len(target), generator=gen)
        total = 0.0
        for i in range(0, len(order), batch):
            idx = order[i : i + batch]
            loss = torch.mean((net(inputs[idx]).squeeze(1) - target[idx]) ** 2)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        print(f"epoch {epoch + 1}/{epochs}: mse {total / len(target):.1f}", flush=True)
    layers = [m for m in net if isinstance(m, torch.nn.Linear)]
    return {
        "mean": mean.tolist(),
        "scale": scale.tolist(),
        "layers": [{"w": m.weight.detach().numpy().T.tolist(), "b": m.bias.detach().numpy().tolist()}
                   for m in layers],
    }  # fmt: skip


def design(
    deals: list[Deal], net: MlpValueModel | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per deal: line-up, the paired correction of each linear feature and of the network (last
    column, if given), and the plain paired difference."""
    cols, ys, which = [], [], []
    for deal in deals:
        parts = [deal.x.astype(np.float64)]
        if net is not None:
            rounds = np.repeat(np.repeat(deal.round, deal.nvar), PLAYERS)
            parts.append(net.network_values(deal.x, rounds)[:, None])
        cols.append(paired_columns(deal, np.concatenate(parts, axis=1)))
        ys.append(deal.plain)
        which.append(deal.lineup)
    return np.asarray(which), np.asarray(cols), np.asarray(ys)


def _centred(which: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The linear fit's centring within each line-up (``fit_aivat_value._centred``)."""
    from fit_aivat_value import _centred as centred

    return centred({"lineup": which, "x": x, "y": y})


def drop_constant(x: np.ndarray) -> np.ndarray:
    """``x`` with each column whose spread is rounding noise (a feature that every outcome of a
    draw moves alike, such as the card count) set to zero: fitted, it would get a weight of
    rounding size's inverse and the value's sums would no longer cancel."""
    spread = x.std(axis=0)
    return np.where(spread > 1e-6 * max(float(spread.max()), 1.0), x, 0.0)


def report(
    which: np.ndarray, x: np.ndarray, y: np.ndarray, weights: np.ndarray
) -> dict[str, float]:
    """Per line-up, the reduced variance over the plain (1 - the share removed)."""
    out = {}
    for w in np.unique(which):
        m = which == w
        out[",".join(LINEUPS[int(w)])] = float(np.var(y[m] - x[m] @ weights) / np.var(y[m]))
    return out


def model_values(model: ValueModel | MlpValueModel, deal: Deal) -> np.ndarray:
    """A shipped model's value of every (outcome, seat) row of ``deal``."""
    rounds = np.repeat(np.repeat(deal.round, deal.nvar), PLAYERS)  # round index: number - 1
    if isinstance(model, MlpValueModel):
        return model.row_values(deal.x, rounds)
    weights = np.asarray([model.weights.get(int(r) + 1, (0.0,) * NF) for r in range(ROUNDS)])
    return np.einsum("ij,ij->i", deal.x, weights[rounds])


def compare(folder: str, names: list[str]) -> None:
    """Per line-up of ``folder``'s deals, each model's reduced variance over the plain."""
    deals = load(folder)
    models = [load_model(name) for name in names]
    for which in sorted({d.lineup for d in deals}):
        mine = [d for d in deals if d.lineup == which]
        y = np.asarray([d.plain for d in mine])
        line = f"{','.join(LINEUPS[which])}: {len(mine)} deals, plain SD {y.std(ddof=1):.1f}"
        for name, model in zip(names, models, strict=True):
            c = np.asarray([paired_columns(d, model_values(model, d))[0] for d in mine])
            line += f"; {name} {np.var(y - c) / np.var(y):.3f}"
        print(line + " (reduced variance / plain)")
    x, r, y = supervised_rows(deals)
    for name, model in zip(names, models, strict=True):
        if isinstance(model, MlpValueModel):
            mse = float(np.mean((model.network_values(x, r) - y) ** 2))
            print(
                f"{name}: its network explains {1 - mse / float(np.var(y)):.3f} of the variance of"
            )
            print(f"  the round's points over {len(y):,} seat-draws (R-squared)")


def main() -> None:
    from fit_aivat_value import _solve as solve
    from fit_aivat_value import choose_ridge

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--deals", type=int, required=True)
    c.add_argument("--seed", type=int, required=True)
    c.add_argument("--jobs", type=int, default=1)
    c.add_argument("--out", required=True)
    f = sub.add_parser("fit")
    f.add_argument("--data", required=True)
    f.add_argument("--holdout", required=True)
    f.add_argument("--hidden", type=int, default=64)
    f.add_argument("--epochs", type=int, default=8)
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--name", default="aivat_value_v2")
    f.add_argument("--out", required=True)
    f.add_argument("--force", action="store_true", help="replace --out if it exists")
    m = sub.add_parser("compare", help="each shipped model's variance ratio on saved deals")
    m.add_argument("--data", required=True)
    m.add_argument("--models", default="aivat_value_v1.json,aivat_value_v2.json")
    args = parser.parse_args()
    if args.cmd == "fit" and os.path.exists(args.out) and not args.force:
        parser.error(
            f"--out {args.out}: exists (a shipped model is frozen); pass --force to replace it"
        )
    if args.cmd == "collect":
        collect(args.deals, args.seed, args.jobs, args.out)
        return
    if args.cmd == "compare":
        compare(args.data, args.models.split(","))
        return
    start = time.process_time()
    fit_deals, held = load(args.data), load(args.holdout)
    print(f"{len(fit_deals)} fit deals, {len(held)} held-out deals")
    net = MlpValueModel.network_only(
        args.name, train_network(*supervised_rows(fit_deals), args.hidden, args.epochs, args.seed)
    )
    figures: dict[str, Any] = {}
    for label, use_net in (("linear", False), ("network", True)):
        which, x, y = design(fit_deals, net if use_net else None)
        xc, yc = _centred(which, x, y)
        xc = drop_constant(xc)
        ridge = choose_ridge(xc, yc)
        weights = solve(xc, yc, ridge)
        hw, hx, hy = design(held, net if use_net else None)
        figures[label] = {
            "ridge_per_deal": ridge,
            "variance_ratio_fit": report(which, xc, yc, weights),
            "variance_ratio_held_out": report(hw, *_centred(hw, hx, hy), weights),
        }
        if use_net:
            mix = weights
    print(json.dumps(figures, indent=1))
    model = net.with_mix([float(v) for v in mix[:-1]], float(mix[-1]))
    doc = model.to_dict()
    doc["fit"] = {
        "script": "scripts/fit_aivat_mlp.py",
        "fit_deals": len(fit_deals),
        "held_out_deals": len(held),
        "lineups": [list(x) for x in LINEUPS],
        "hidden": args.hidden,
        "epochs": args.epochs,
        "figures": figures,
    }
    MlpValueModel.from_dict(json.loads(json.dumps(doc)), args.out)  # what is written reads back
    tmp = f"{args.out}.tmp"
    with open(tmp, "w") as fh:
        json.dump(doc, fh)
        fh.write("\n")
    os.replace(tmp, args.out)
    print(f"wrote {args.out}: {model.label}; {time.process_time() - start:.0f} CPU s")


if __name__ == "__main__":
    main()
