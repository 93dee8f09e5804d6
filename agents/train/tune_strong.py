"""Tune ``strong@v2``'s constants together with CMA-ES (the maintained ``cma`` package).

``python -m agents.train.tune_strong --deals 24 --popsize 8 --generations 20 --seed 7301 \\
    --state results/strength_tune_v2.state --json results/strength_tune_v2.json``

**Objective.** For a parameter vector, ``StrongV2Agent(params)`` plays ``--deals`` duplicate deals
against three ``strong@v1`` (4 players, ``continental``), sitting in every seat of each deal on the
identical cards; the value is the mean over deals of its points per game minus the mean of the
``strong@v1`` seats (lower is better), the paired per-deal difference of ``agents.evaluate.harness``.
Every candidate of every generation plays the *same* deals (common random numbers), so the
comparison between candidates is paired; the winner must then be measured on fresh deals.

**Search space.** ``SPACE`` lists the tuned constants of ``agents.contract.strong_tuned.Params`` with their
ranges; CMA-ES works on the unit cube (each constant scaled to [0, 1]), starts from the hand-set
constants (``agents.contract.strong_tuned.HAND_SET``; "defaults" in the report) with step 0.2 and keeps inside the bounds. Its generator is seeded from ``--seed``.

**Resumable.** After every evaluation the state file (a pickle: the optimiser as it was before
this generation's ``tell``, the generation's asked points and the values found so far) is
replaced atomically; ``--resume`` continues from it and plays only what is missing, so an
interrupted run ends where an uninterrupted one would. Every evaluation is also appended to the
``--json`` report (rewritten atomically), which names the best mean of the search
(``xfavorite``) and the best evaluated point.
"""

from __future__ import annotations

import json
import os
import pickle
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from agents.cli import ArgumentParser
from agents.contract.strong import StrongAgent
from agents.contract.strong_tuned import HAND_SET, Params, StrongV2Agent
from agents.contract.view import PlayerView
from agents.evaluate.harness import derive_seed
from continental_env.contract.game import Game
from continental_env.rules import RuleConfig, resolve_rules

SCHEMA = "continental-tune-strong/1"
# Tuned constant -> (low, high).
SPACE: dict[str, tuple[float, float]] = {
    "feed_next": (0.0, 5.0),
    "feed_other": (0.0, 3.0),
    "feed_down": (0.0, 6.0),
    "safe_weight": (0.0, 1.5),
    "danger_cards": (1.0, 6.0),
    "danger_points_up": (0.0, 1.0),
    "danger_points_down": (0.0, 1.5),
    "laydown_points": (10.0, 60.0),
    "laydown_turns": (0.5, 5.0),
    "short_hand": (2.0, 8.0),
    "take_gain": (0.0, 2.0),
}


def to_unit(params: Params) -> list[float]:
    """The tuned constants of ``params`` scaled to [0, 1]."""
    d = params.to_dict()
    return [(d[k] - lo) / (hi - lo) for k, (lo, hi) in SPACE.items()]


def from_unit(x: Sequence[float], base: Params | None = None) -> Params:
    """``Params`` with the tuned constants read from a point of the unit cube (clipped)."""
    values = {}
    for v, (k, (lo, hi)) in zip(x, SPACE.items(), strict=True):
        values[k] = lo + min(1.0, max(0.0, float(v))) * (hi - lo)
    return replace(base or HAND_SET, **values)


def deal_difference(
    params: Params,
    game_seed: int,
    players: int = 4,
    rules: RuleConfig | str = "continental",
    on_game: Callable[[], object] | None = None,
) -> float:
    """One duplicate deal: v2 with ``params`` in each seat in turn against ``strong@v1``; its mean
    points per game minus the mean points of the ``strong@v1`` seats. ``on_game`` is called after
    each game (the progress bar)."""
    mine = []
    theirs = []
    for k in range(players):
        game = Game.new(rules, players, seed=game_seed)
        bots: list[Any] = [StrongAgent(0) for _ in range(players)]
        bots[k] = StrongV2Agent(0, params)
        while not game.is_over:
            seat = game.actor
            game.apply(bots[seat].act(PlayerView(game, seat)))
        scores = game.scores
        if on_game is not None:
            on_game()
        mine.append(scores[k])
        theirs.append((sum(scores) - scores[k]) / (players - 1))
    return (sum(mine) - sum(theirs)) / players


def objective(
    params: Params,
    deals: int,
    seed: int,
    rules: RuleConfig | str = "continental",
    on_game: Callable[[], object] | None = None,
) -> float:
    """Mean per-deal difference v2(params) - strong@v1 over ``deals`` fixed deals (lower is better)."""
    total = 0.0
    for d in range(deals):
        seed_d = derive_seed(seed, "tune-deal", d)
        total += deal_difference(params, seed_d, rules=rules, on_game=on_game)
    return total / deals


def _atomic_write(path: str, data: bytes) -> None:
    tmp = path + ".tmp"
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def tune(
    deals: int,
    popsize: int,
    generations: int,
    seed: int,
    state_path: str,
    json_path: str | None,
    resume: bool = False,
    rounds: Sequence[int] | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Run (or continue) the CMA-ES search; returns the report written to ``json_path``.
    ``progress``: a bar on stderr counting the games of every evaluation still to play.

    ``rounds`` (the contract's rounds to play; all seven by default) exists for quick tests.
    """
    import cma

    rules = resolve_rules("continental")
    if rounds:
        rules = rules.with_rounds(tuple(rounds))

    def save() -> None:
        _atomic_write(state_path, pickle.dumps(st))
        if json_path:
            _atomic_write(json_path, (json.dumps(_report(st), indent=2) + "\n").encode())

    if resume and os.path.exists(state_path):
        with open(state_path, "rb") as fh:
            st = pickle.load(fh)
        if (st["deals"], st["seed"], st["popsize"]) != (deals, seed, popsize):
            raise ValueError(
                f"--state {state_path}: written with deals {st['deals']}, seed {st['seed']}, "
                f"popsize {st['popsize']}; run with the same values or a new --state"
            )
    else:
        es = cma.CMAEvolutionStrategy(
            to_unit(HAND_SET), 0.2,
            {"bounds": [0.0, 1.0], "popsize": popsize, "seed": seed, "verbose": -9},
        )  # fmt: skip
        st = {"deals": deals, "seed": seed, "popsize": popsize, "es": es, "generation": 0,
              "asked": None, "values": [], "history": [], "cpu_s": 0.0,
              "rounds": list(rules.rounds), "baseline": None}  # fmt: skip
    if st["rounds"] != list(rules.rounds):
        raise ValueError(f"--state {state_path}: written for rounds {st['rounds']}")
    from tqdm import tqdm

    per_eval = deals * 4  # every deal in the 4 seatings
    evaluations = 1 + generations * popsize
    done = (st["baseline"] is not None) + st["generation"] * popsize + len(st["values"])
    bar = tqdm(total=evaluations * per_eval, initial=min(done, evaluations) * per_eval,
               unit="game", desc="games", file=sys.stderr, disable=not progress)  # fmt: skip
    if st["baseline"] is None:
        # The defaults on the same deals: the reference every candidate is compared with.
        cpu = time.process_time()
        st["baseline"] = objective(HAND_SET, deals, seed, rules, on_game=bar.update)
        st["cpu_s"] += time.process_time() - cpu
        print(f"defaults: {st['baseline']:+.2f} points/game vs strong@v1", flush=True)
        save()
    while st["generation"] < generations:
        es = st["es"]
        if st["asked"] is None:
            st["asked"] = [list(map(float, x)) for x in es.ask()]
            st["values"] = []
        for x in st["asked"][len(st["values"]) :]:
            cpu = time.process_time()
            value = objective(from_unit(x), deals, seed, rules, on_game=bar.update)
            st["cpu_s"] += time.process_time() - cpu
            st["values"].append(value)
            st["history"].append(
                {"generation": st["generation"], "value": value,
                 "params": {k: from_unit(x).to_dict()[k] for k in SPACE}}
            )  # fmt: skip
            print(f"generation {st['generation']} candidate {len(st['values'])}/{popsize}: "
                  f"{value:+.2f} points/game vs strong@v1", flush=True)  # fmt: skip
            save()
        es.tell(st["asked"], st["values"])
        st["generation"] += 1
        st["asked"] = None
        st["values"] = []
        save()
    bar.close()
    return _report(st)


def _report(st: dict[str, Any]) -> dict[str, Any]:
    es = st["es"]
    history = st["history"]
    best = min(history, key=lambda h: h["value"]) if history else None
    favourite = from_unit(es.result.xfavorite).to_dict()
    return {
        "schema": SCHEMA,
        "config": {
            "deals": st["deals"],
            "seed": st["seed"],
            "popsize": st["popsize"],
            "opponents": "3 x strong@v1",
            "players": 4,
            "preset": "continental",
            "rounds": st["rounds"],
            "space": {k: list(v) for k, v in SPACE.items()},
        },
        "generations_done": st["generation"],
        "evaluations": len(history),
        "cpu_seconds": st["cpu_s"],
        "defaults": {k: HAND_SET.to_dict()[k] for k in SPACE},
        "defaults_value": st["baseline"],
        "favourite": {k: favourite[k] for k in SPACE},
        "best_evaluated": best,
        "history": history,
    }


def plot_history(report: dict[str, Any], path: str) -> None:
    """Every evaluation's value by generation, the generations' means and the defaults' value."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    history = report["history"]
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    gens = sorted({h["generation"] for h in history})
    ax.scatter([h["generation"] for h in history], [h["value"] for h in history], s=14,
               color="tab:blue", alpha=0.6, label="one candidate")  # fmt: skip
    means = [sum(h["value"] for h in history if h["generation"] == g)
             / sum(1 for h in history if h["generation"] == g) for g in gens]  # fmt: skip
    ax.plot(gens, means, "o-", color="tab:red", label="generation mean")
    if report.get("defaults_value") is not None:
        ax.axhline(
            report["defaults_value"], color="grey", ls="--", label="hand-set start (HAND_SET)"
        )
    ax.axhline(0.0, color="black", lw=0.8)
    cfg = report["config"]
    ax.set_xlabel("CMA-ES generation")
    ax.set_ylabel("v2 - strong@v1, points/game (lower is better)")
    ax.set_title(f"Tuning strong@v2 on {cfg['deals']} common deals x 4 seatings "
                 f"(seed {cfg['seed']}, popsize {cfg['popsize']})", fontsize=9)  # fmt: skip
    ax.set_xticks(gens)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = ArgumentParser(
        prog="python -m agents.train.tune_strong", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--deals", type=int, default=24, help="duplicate deals per evaluation")
    parser.add_argument("--popsize", type=int, default=8)
    parser.add_argument("--generations", type=int, default=20)
    parser.add_argument(
        "--seed", type=int, default=7301, help="seed of the optimiser and the deals"
    )
    parser.add_argument("--state", default=None, help="checkpoint file (pickle)")
    parser.add_argument("--json", default=None, help="the report, rewritten after each step")
    parser.add_argument("--resume", action="store_true", help="continue from --state")
    parser.add_argument("--plot", default=None, help="instead: plot the --json report here")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    if args.plot:
        if not args.json:
            parser.error("--plot reads the --json report")
        with open(args.json) as fh:
            plot_history(json.load(fh), args.plot)
        return 0
    if not args.state:
        parser.error("--state PATH is needed to tune")
    for flag, value in (("--deals", args.deals), ("--popsize", args.popsize),
                        ("--generations", args.generations)):  # fmt: skip
        if value < 1 or (flag == "--popsize" and value < 2):
            parser.error(f"{flag} {value}: too small")
    try:
        report = tune(args.deals, args.popsize, args.generations, args.seed, args.state,
                      args.json, args.resume, progress=not args.no_progress)  # fmt: skip
    except ValueError as exc:
        parser.error(str(exc))
    print(json.dumps({"favourite": report["favourite"], "best": report["best_evaluated"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
