"""Research measurements of the ``search@v1`` bot (``agents.contract.search``): its cost per
budget, how often an information-set tree would revisit a node, and the strength curve.

```
python scripts/search_research.py --budgets 1,2,4,8 --games 2 --json results/search_bench.json
python scripts/search_research.py --curve A.json,B.json --bench-json results/search_bench.json --json C.json --plot C.png
python scripts/search_research.py --tree-worlds 4,16,64 --games 1 --json results/search_tree_stats.json
```

Research code, not the bot: it lives here so that the bot's module holds only the bot.
"""

from __future__ import annotations

import random

from agents.contract.sampler import PublicInfo, sample_world
from agents.contract.search import DEFAULT_SIMS, SearchAgent
from agents.contract.strong import StrongAgent, make_plan
from agents.contract.view import PlayerView
from continental_env.contract.game import Game


def bench(budgets: list[int], games: int = 1, seed: int = 0) -> list[dict[str, float]]:
    """Cost of ``search:N`` for each budget, in CPU time (``time.process_time``: unaffected by
    other processes on a shared machine) and wall time.

    Per decision: on the decisions of seat 0 in ``games`` 4-player ``continental`` games played
    by ``strong`` (the same states for every budget). Per game: ``games`` full games of
    ``search:N`` in seat 0 against three ``strong`` (every seat's decisions included).
    """
    import time

    states = _bench_states(games, seed)
    out = []
    for n in budgets:
        # Every budget starts from the same cache: strong's plans for the root states only (the
        # budgets share their first worlds, so a warm rollout cache would flatter the later ones).
        make_plan.cache_clear()
        warm = StrongAgent(0)
        for st in states:
            warm.act(PlayerView(st, 0))
        bot = SearchAgent(seed, n)
        cpu, wall = time.process_time(), time.perf_counter()
        for st in states:
            bot.act(PlayerView(st, 0))
        cpu_ms = 1000 * (time.process_time() - cpu)
        wall_ms = 1000 * (time.perf_counter() - wall)
        make_plan.cache_clear()
        cpu_game = time.process_time()
        for g in range(games):
            game = Game.new("continental", 4, seed=seed + 1000 + g)  # games not seen above
            bots = [SearchAgent(seed, n)] + [StrongAgent(s) for s in range(1, 4)]
            while not game.is_over:
                game.apply(bots[game.actor].act(PlayerView(game, game.actor)))
        row = {
            "sims": n,
            "decisions": len(states),
            "searched": bot.decisions,
            "cpu_ms_per_decision": cpu_ms / len(states),
            "cpu_ms_per_searched_decision": cpu_ms / max(bot.decisions, 1),
            "wall_ms_per_decision": wall_ms / len(states),
            "rollouts_per_searched_decision": bot.rollouts / max(bot.decisions, 1),
            "deviations": bot.deviations,
            "cpu_s_per_game": (time.process_time() - cpu_game) / games,
        }
        out.append(row)
        print(
            f"search:{n}: {row['cpu_ms_per_decision']:.1f} CPU ms/decision over {len(states)} "
            f"decisions ({bot.decisions} searched, {row['cpu_ms_per_searched_decision']:.0f} ms "
            f"and {row['rollouts_per_searched_decision']:.1f} rollouts each; wall "
            f"{row['wall_ms_per_decision']:.1f} ms/decision); "
            f"{row['cpu_s_per_game']:.1f} CPU s per game against three strong",
            flush=True,
        )
    return out


def _bench_states(games: int, seed: int) -> list[Game]:
    """Seat 0's decision states in ``games`` 4-player ``continental`` games played by ``strong``."""
    states = []
    for g in range(games):
        game = Game.new("continental", 4, seed=seed + g)
        bots = [StrongAgent(s) for s in range(4)]
        while not game.is_over:
            if game.actor == 0:
                states.append(game.clone())
            game.apply(bots[game.actor].act(PlayerView(game, game.actor)))
    return states


def _next_node(world: Game, action: int, strong: StrongAgent) -> str:
    """``tree_stats``' node after ``action`` in a copy of ``world``: seat 0's information state at
    its next decision with more than one legal action (``strong`` plays every seat until then),
    or ``"end"`` when the round or the game ends first."""
    w = world.clone()
    w.apply(action)
    start = w.round_index
    while w.phase != "game_over" and w.round_index == start:
        legal = w.legal_actions()
        if w.actor == 0 and len(legal) > 1:
            break
        actor = w.actor
        w.apply(legal[0] if len(legal) == 1 else strong.act(PlayerView(w, actor)))
    if w.round_index != start or w.phase == "game_over":
        return "end"
    return repr(PublicInfo.from_view(PlayerView(w, 0)))


def tree_stats(worlds: list[int], games: int = 1, seed: int = 0) -> list[dict[str, float]]:
    """How often an information-set tree would revisit a node below the root.

    For each searched decision of seat 0 (on ``_bench_states``) and each candidate, ``N``
    sampled worlds are rolled out by ``strong`` until seat 0's next decision with more than one
    legal action; the node an information-set MCTS would reach there is seat 0's information
    state (its ``PublicInfo``). Returns, per ``N``, the mean number of distinct next nodes per
    candidate divided by ``N``: 1.0 means every simulation lands in a new node, so the tree
    below the root never gets a second visit and ISMCTS reduces to flat Monte Carlo at the root.
    """
    states = _bench_states(games, seed)
    probe = SearchAgent(seed, 1)
    strong = StrongAgent(0)
    searched = [st for st in states if len(probe.candidates(PlayerView(st, 0))) >= 2]
    out = []
    for n in worlds:
        ratios = []
        rng = random.Random(seed)
        for st in searched:
            view = PlayerView(st, 0)
            info = PublicInfo.from_view(view)
            sampled = [sample_world(info, rng) for _ in range(n)]
            for a in probe.candidates(view):
                nodes = set()
                for world in sampled:
                    nodes.add(_next_node(world, a, strong))
                ratios.append(len(nodes) / n)
        row = {"worlds": n, "searched_decisions": len(searched), "distinct_per_world": 0.0}
        row["distinct_per_world"] = sum(ratios) / max(len(ratios), 1)
        out.append(row)
        print(
            f"{n} worlds: {row['distinct_per_world']:.3f} distinct next nodes per simulation "
            f"over {len(searched)} searched decisions",
            flush=True,
        )
    return out


def strength_curve(reports: list[dict], bench_rows: list[dict]) -> list[dict[str, object]]:
    """One row per budget: the paired difference against ``strong`` (from ``agents.evaluate.harness``
    reports of ``search:N,strong``) and the cost from ``bench`` rows of the same budget."""
    cost = {row["sims"]: row for row in bench_rows}
    rows = []
    for rep in reports:
        name = rep["candidate"]
        sims = DEFAULT_SIMS if ":" not in name else int(name.split(":")[1])
        paired = rep["paired"].get("strong") or rep["paired"]["strong@v1"]
        row: dict[str, object] = {
            "agent": name,
            "sims": sims,
            "deals": rep["config"]["deals"],
            "seed": rep["config"]["seed"],
            "mean_diff": paired["mean_diff"],
            "ci95": paired["ci95"],
        }
        if sims in cost:
            row["cpu_ms_per_decision"] = cost[sims]["cpu_ms_per_decision"]
            row["cpu_s_per_game"] = cost[sims]["cpu_s_per_game"]
        rows.append(row)
    return sorted(rows, key=lambda r: r["sims"])  # type: ignore[arg-type, return-value]


def plot_curve(rows: list[dict], path: str) -> None:
    """Paired difference vs ``strong`` (95 % CI) against the budget, CPU ms per decision on top."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    xs = [r["sims"] for r in rows]
    ys = [r["mean_diff"] for r in rows]
    lo = [max(0.0, r["mean_diff"] - r["ci95"][0]) for r in rows]
    hi = [max(0.0, r["ci95"][1] - r["mean_diff"]) for r in rows]
    ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o-", capsize=4, color="tab:blue")
    ax.axhline(0.0, color="grey", lw=1, ls="--")
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs)
    labels = []
    for r in rows:
        ms = r.get("cpu_ms_per_decision")
        labels.append(f"{r['sims']}\n{ms:.0f} ms" if ms is not None else str(r["sims"]))
    ax.set_xticklabels(labels)
    ax.set_xlabel("worlds per decision (budget)\nCPU ms per decision")
    ax.set_ylabel("search - strong, points/game (lower is better)")
    deals = ", ".join(f"{r['sims']}: {r['deals']}" for r in rows)
    ax.set_title(f"search vs three strong, 4 players (deals per budget {deals})", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    """The command line (module docstring)."""
    import argparse
    import json

    parser = argparse.ArgumentParser(description="ms per decision of the search bot")
    parser.add_argument("--budgets", default="1,2,4,8")
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--json", default=None)
    parser.add_argument(
        "--tree-worlds",
        default=None,
        help="instead: distinct next information sets per simulation for these world counts",
    )
    parser.add_argument(
        "--curve",
        default=None,
        help="instead: comma-separated evaluate reports of search:N,strong, joined with the "
        "--bench-json rows into a strength curve (--json, --plot)",
    )
    parser.add_argument("--bench-json", default=None, help="bench rows for --curve")
    parser.add_argument("--plot", default=None, help="the strength curve's PNG (--curve)")
    args = parser.parse_args()
    if args.curve:
        reports = []
        for path in args.curve.split(","):
            with open(path) as fh:
                reports.append(json.load(fh))
        bench_rows = []
        if args.bench_json:
            with open(args.bench_json) as fh:
                bench_rows = json.load(fh)
        rows = strength_curve(reports, bench_rows)
        for r in rows:
            print(r, flush=True)
        if args.plot:
            plot_curve(rows, args.plot)
    elif args.tree_worlds:
        rows = tree_stats([int(n) for n in args.tree_worlds.split(",")], args.games)
    else:
        rows = bench([int(b) for b in args.budgets.split(",")], args.games)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)
            fh.write("\n")


if __name__ == "__main__":
    main()
