"""Relabel the buy-back decisions of saved knock teacher decisions (``train.py --bc-data`` of the
``knock_v1`` or ``knock_v2`` observation) with another bot's buy-back rule, read from the observation's features
(``greedy_buys`` / ``strong_buys``: ``agents.knock.features``). Every other decision keeps its
teacher's action; the games themselves were played by the teacher.

    python scripts/knock_bc_buy_rule.py runs/side/bc_knock_v1_strong_full.npz \
        runs/side/bc_knock_v1_strong_greedybuy.npz --rule greedy
"""

from __future__ import annotations

import argparse

import numpy as np

from agents.bots.side_policy import side_metadata
from agents.knock import features as knock_features
from agents.train.warm_start import load_bc_data, save_bc_data
from continental_env.cards import NUM_TYPES
from continental_env.knock.game import BUY, PASS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src")
    parser.add_argument("dst")
    parser.add_argument("--rule", choices=["greedy", "strong"], default="greedy")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args(argv)
    data = load_bc_data(args.src)
    v0 = side_metadata("knock", args.players)["obs_size"]
    sizes = {side_metadata("knock", args.players, features=v)["obs_size"]: v for v in (1, 2)}
    version = sizes.get(data["obs"].shape[1])
    if version is None:
        raise SystemExit(
            f"{args.src}: not knock_v1 or knock_v2 decisions at {args.players} players"
        )
    planes, scalars = knock_features.VERSIONS[version]
    column = v0 + len(planes) * NUM_TYPES + scalars.index(f"{args.rule}_buys")
    actions = np.array(data["actions"], copy=True)
    buys = np.isin(actions, (BUY, PASS))
    new = np.where(data["obs"][:, column] > 0.5, BUY, PASS)
    changed = int((actions[buys] != new[buys]).sum())
    actions[buys] = new[buys]
    save_bc_data(args.dst, data["obs"], data["legal"], actions, data["returns"])
    print(f"{int(buys.sum())} buy-back decisions, {changed} relabelled to {args.rule}'s rule "
          f"(buy {int((new[buys] == BUY).sum())}, pass {int((new[buys] == PASS).sum())}); "
          f"{len(actions)} decisions written to {args.dst}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
