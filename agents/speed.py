"""``continental speed``: the project's speed table, this tree against another revision.

    continental speed                         # against the previous commit (HEAD~1)
    continental speed --against 5894364       # against a named revision
    continental speed --rows evaluate,aec --json results/speed_table.json

Every row is measured in CPU time of the measuring process (``time.process_time``), so the load
of a shared machine does not distort it, and side by side: the other revision is unpacked into a
temporary directory (``git archive``, nothing is added to the repository) and each row runs, in
a subprocess, once on that tree and once on this one, with the same measuring code (this file)
importing each tree's own packages. The rows:

``search``
    CPU seconds per 4-player game of ``search`` (4 worlds) against three ``strong``.
``train``
    learner steps per CPU-second of the flagship recipe (v1 observation, opponents
    strong,strong,greedy,self, KL-PPO from the shipped model, a fixed number of steps, dummy
    vector env so that every step's CPU is this process's). Each side runs its own recipe
    (``--recipe``, ``--baseline-recipe``): the recipe is part of what changed.
``selfplay``
    learner steps per CPU-second of the self-play trainer (``agents.train.selfplay``, every seat
    the learner) on this tree, against the flagship recipe (``--baseline-recipe``) on the
    baseline tree, which may predate the trainer.
``evaluate``
    games per CPU-second of ``evaluate strong,greedy`` (duplicate deals x 4 seatings).
``ppo``
    games per CPU-second of ``evaluate ppo:agents/models/ppo_continental_4p.zip,strong``, the
    CPU seconds to load the model, and whether torch was imported.
``aec``
    random legal play, 4 players, an observation and a mask every decision, through the wrapped
    AEC env, and through OpenSpiel's C++ ``gin_rummy`` with ``np.asarray(observation_tensor())``
    every decision, in alternating passes in one process: decisions per CPU-second and the ratio.

The table (and ``--json``) gives each row's figure on both trees and their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

SHIPPED = "agents/models/ppo_continental_4p.zip"
REPO = Path(__file__).resolve().parents[1]  # the checkout this file is in (agents/speed.py)
# The flagship recipe (agents/models/README.md) sized for a short measurement: two rollouts of
# 2,048 learner steps, no evaluation, checkpoint or snapshot inside them.
COMMON = (
    f"--features --init-policy {SHIPPED} --kl-coef 0.5 --kl-anneal-steps 300000 "
    "--opponents strong,strong,greedy,self --vec-env dummy --batch-size 1024 --n-epochs 2 "
    "--net-arch 256,256 --ent-coef 0.01 --eval-every 0 --checkpoint-every 1000000 "
    "--snapshot-every 1000000 --total-timesteps 4096 --no-progress"
)
RECIPE_DUMMY = f"--num-envs 8 --n-steps 256 {COMMON}"  # the flagship recipe before the batch core
# The flagship recipe on the compiled batch core (``--vec-env batch``): the same opponents, KL,
# batch, epochs and network; 128 tables x 64 steps per rollout, two rollouts.
RECIPE = (
    COMMON.replace("--vec-env dummy", "--vec-env batch").replace(
        "--total-timesteps 4096", "--total-timesteps 16384"
    )
    + " --num-envs 128 --n-steps 64"
)
RECIPE_5894364 = f"--num-envs 2 --n-steps 1024 {COMMON}"  # as shipped at 5894364
# The self-play trainer as the from-scratch run uses it (docs/training.md), for six updates of
# 256 lanes x 64 steps.
SELFPLAY_RECIPE = (
    "--num-games 256 --steps-per-rollout 64 --total-steps 98304 --seed 2028 --observation v1 "
    "--players 4 --preset continental --hidden 256,256 --shared-trunk --update-epochs 2 "
    "--num-minibatches 4 --ent-coef 0.03 --checkpoint-every 5"
)


# ============================================================================ one row, one tree


def row_search(games: int) -> dict[str, Any]:
    from agents.evaluate import play_game

    play_game(["strong"] * 4, 99, [0, 1, 2, 3], options={"rounds": [1]})  # imports, caches
    # The same bot in every tree: search@v1 at 4 worlds (trees before the versions call it search:4).
    try:
        from agents.registry import VERSIONS

        name = "search@v1:4" if "search@v1" in VERSIONS.get("search", ()) else "search:4"
    except ImportError:
        name = "search:4"
    start = time.process_time()
    for g in range(games):
        play_game([name, "strong", "strong", "strong"], 1000 + g, [1, 2, 3, 4])
    cpu = time.process_time() - start
    return {"value": cpu / games, "unit": "CPU s per game", "higher_is_better": False}


def _deal_games(names: list[str], deals: int, first: int = 0) -> int:
    from agents.evaluate import derive_seed, play_game, rotations

    played = 0
    for deal in range(first, first + deals):
        game_seed = derive_seed(11, "deal", deal)
        for k, seating in enumerate(rotations(names)):
            seeds = [derive_seed(11, "agent", deal, k, s) for s in range(len(seating))]
            play_game(seating, game_seed, seeds)
            played += 1
    return played


def _digest(data: Any) -> str:
    """A short digest of JSON-able data: the two trees' outputs compared without storing them."""
    import hashlib

    text = json.dumps(data, sort_keys=True, default=lambda x: x.tolist())
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def row_evaluate(deals: int) -> dict[str, Any]:
    """``evaluate strong@v1,greedy`` through the harness, as ``continental evaluate`` runs it."""
    from agents.evaluate import evaluate

    evaluate(["strong@v1", "greedy"], 4, 1, seed=12)  # warm-up on another seed: imports, caches
    start = time.process_time()
    report = evaluate(["strong@v1", "greedy"], 4, deals, seed=11)
    cpu = time.process_time() - start
    played = 4 * deals  # every deal in its 4 seatings
    report.pop("timing")
    return {"value": played / cpu, "unit": "games per CPU-s", "games": played, "cpu_s": cpu,
            "report": _digest(report)}  # fmt: skip


def row_search5(players: int, games: int) -> dict[str, Any]:
    """CPU seconds per game of ``search@v5`` against ``strong@v1`` at every other seat."""
    from agents.evaluate import play_game

    names = ["search@v5"] + ["strong@v1"] * (players - 1)
    play_game(["strong@v1"] * players, 99, list(range(players)), options={"rounds": [1]})
    results = []
    start = time.process_time()
    for g in range(games):
        results.append(play_game(names, 2000 + g, list(range(1, players + 1))))
    cpu = time.process_time() - start
    return {"value": cpu / games, "unit": "CPU s per game", "higher_is_better": False,
            "results": _digest(results)}  # fmt: skip


def row_label(deals: int) -> dict[str, Any]:
    """Expert-iteration labels (``agents.train.expert``, teacher ``search@v5`` among three
    ``strong@v1``): deals per CPU-hour and a digest of the labels."""
    from agents.train.expert import label_deal

    label_deal((1000, 5, 4, "continental", "search@v5", "strong@v1", [1], None))  # warm-up
    parts = []
    start = time.process_time()
    for d in range(deals):
        parts.append(label_deal((d, 5, 4, "continental", "search@v5", "strong@v1", None, None)))
    cpu = time.process_time() - start
    return {"value": deals / cpu * 3600, "unit": "deals per CPU-hour", "cpu_s": cpu,
            "labels": _digest(parts)}  # fmt: skip


def row_ppo(deals: int) -> dict[str, Any]:
    start = time.process_time()
    from agents import make_agent
    from agents.evaluate import lineup

    model = f"ppo:{SHIPPED}"
    make_agent(model, 0)
    load = time.process_time() - start
    names = lineup([model, "strong"], 4)
    _deal_games(names, 1, first=1000)  # warm-up on another deal, as for ``evaluate``
    start = time.process_time()
    played = _deal_games(names, deals)
    cpu = time.process_time() - start
    return {
        "value": played / cpu,
        "unit": "games per CPU-s",
        "games": played,
        "cpu_s": cpu,
        "load_cpu_s": load,
        "torch_imported": "torch" in sys.modules,
    }


ABLATIONS = ("lean", "kl-once")


def _ablate(names: Sequence[str]) -> None:
    """Undo training levers of this tree, to measure what each gave: ``lean`` (sb3-contrib's
    rollout step instead of ``LeanPolicy``'s), ``kl-once`` (the KL reference recomputed on
    every minibatch of every epoch)."""
    if not names:
        return
    from agents import kl_ppo

    if "lean" in names:
        del kl_ppo.LeanPolicy.forward  # back to MaskableActorCriticPolicy.forward
        if hasattr(kl_ppo, "_entropy"):  # and the lean update's evaluate_actions (KL kept)
            del kl_ppo.LeanPolicy.evaluate_actions
    if "kl-once" in names:
        kl_ppo.KLPolicy.prepare_reference = lambda self, buffer, chunk=1024: None


def row_train(recipe: str, ablate: Sequence[str] = ()) -> dict[str, Any]:
    from sb3_contrib import MaskablePPO

    _ablate(ablate)

    learn = MaskablePPO.learn
    measured: dict[str, float] = {}

    def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
        steps, start = self.num_timesteps, time.process_time()
        out = learn(self, *args, **kwargs)
        measured["cpu"] = time.process_time() - start
        measured["steps"] = self.num_timesteps - steps
        return out

    MaskablePPO.learn = timed
    try:  # this tree's path, then the one of trees before agents/ had subpackages
        from agents.train.sb3 import main
    except ModuleNotFoundError:
        from agents.train import main  # type: ignore[attr-defined, no-redef]

    with tempfile.TemporaryDirectory() as runs:
        main([*recipe.split(), "--runs-dir", runs, "--run-name", "speed"])
    return {
        "value": measured["steps"] / measured["cpu"],
        "unit": "learner steps per CPU-s",
        "steps": measured["steps"],
        "cpu_s": measured["cpu"],
        "recipe": recipe,
        "ablated": list(ablate),
    }


def row_selfplay(recipe: str) -> dict[str, Any]:
    """Decisions per CPU-second of ``agents.train.selfplay`` (every decision is the learner's),
    counted from the start of training to its last checkpoint."""
    from agents.train import selfplay

    with tempfile.TemporaryDirectory() as runs:
        cfg, saved = selfplay.parse_args([*recipe.split(), "--out", str(Path(runs) / "run")])
        start = time.process_time()
        counters = selfplay.train(cfg, saved)
        cpu = time.process_time() - start
    return {
        "value": counters["decisions"] / cpu,
        "unit": "learner steps per CPU-s",
        "steps": counters["decisions"],
        "cpu_s": cpu,
        "recipe": recipe,
    }


def _ours(seed: int) -> Callable[[int], None]:
    import numpy as np

    import continental_env
    from continental_env.bench import _random_play

    env = continental_env.env(num_players=4)
    rng = np.random.default_rng(seed)

    # The same random legal play as `continental bench` (both trees have this function).
    it = _random_play(env, rng, seed, None)

    def run(n: int) -> None:
        for _ in range(n):
            next(it)

    return run


def _openspiel(seed: int) -> Callable[[int], None]:
    import numpy as np
    import pyspiel

    game = pyspiel.load_game("gin_rummy")
    rng = np.random.default_rng(seed)

    def play() -> Any:
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                    continue
                np.asarray(state.observation_tensor())
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
                yield

    it = play()

    def run(n: int) -> None:
        for _ in range(n):
            next(it)

    return run


def row_aec(passes: int, decisions: int) -> dict[str, Any]:
    ours = _ours(0)
    ours(200)  # warm-up
    try:
        theirs = _openspiel(0)
    except ImportError:
        theirs = None
    rates: tuple[list[float], list[float]] = ([], [])
    for _ in range(passes):
        for run, out in ((ours, rates[0]), (theirs, rates[1])):
            if run is None:
                continue
            start = time.process_time()
            run(decisions)
            out.append(decisions / (time.process_time() - start))
    row: dict[str, Any] = {"value": statistics.median(rates[0]), "unit": "decisions per CPU-s"}
    if theirs is not None:
        ratios = [a / b for a, b in zip(*rates, strict=True)]
        row["openspiel"] = statistics.median(rates[1])
        row["vs_openspiel"] = statistics.median(ratios)
    return row


ROWS = (
    "search", "search5", "search5-8p", "label", "train", "selfplay", "evaluate", "ppo", "aec",
)  # fmt: skip
# Rows whose baseline side measures another row: the self-play trainer is compared with the
# flagship recipe (``--baseline-recipe``) of the baseline tree.
BASE_ROW = {"selfplay": "train"}


def run_row(name: str, args: argparse.Namespace) -> dict[str, Any]:
    """Measure one row on the tree this process imports."""
    if name == "search":
        return row_search(args.search_games)
    if name == "train":
        return row_train(args.recipe, [a for a in args.ablate.split(",") if a])
    if name == "selfplay":
        return row_selfplay(args.selfplay_recipe)
    if name == "search5":
        return row_search5(4, args.search_games)
    if name == "search5-8p":
        return row_search5(8, args.search_games)
    if name == "label":
        return row_label(args.label_deals)
    if name == "evaluate":
        return row_evaluate(args.deals)
    if name == "ppo":
        return row_ppo(args.ppo_deals)
    if name == "aec":
        return row_aec(args.aec_passes, args.aec_decisions)
    raise ValueError(f"unknown row {name!r}")


# ============================================================================ the table


def unpack(rev: str, repo: Path, into: Path) -> str:
    """Unpack ``rev`` of ``repo`` into ``into`` (``git archive``); returns its short hash."""
    short = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--short", f"{rev}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if short.returncode != 0:
        raise ValueError(f"--against {rev}: not a revision of {repo}")
    archive = subprocess.Popen(["git", "-C", str(repo), "archive", rev], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(into)], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise ValueError(f"--against {rev}: git archive failed")
    build_extensions(into)
    return short.stdout.strip()


def build_extensions(tree: Path) -> None:
    """Compile the tree's C extensions in place, as an install does, so that both sides run
    what their users run (a tree without any declares none and builds nothing)."""
    done = subprocess.run(
        [sys.executable, "-c", "from setuptools import setup; setup()", "build_ext", "--inplace"],
        cwd=tree,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-3:])
        raise ValueError(f"building the compiled extensions of {tree} failed: {tail}")


def measure(
    tree: Path, row: str, args: argparse.Namespace, recipe: str, ablate: str = ""
) -> dict[str, Any]:
    """One row on ``tree`` in a fresh subprocess running this file's measuring code."""
    with tempfile.TemporaryDirectory() as tmp:
        runner = Path(tmp) / "speed_runner.py"
        shutil.copy(__file__, runner)
        out = Path(tmp) / "row.json"
        env = dict(os.environ, PYTHONPATH=str(tree), OMP_NUM_THREADS="1")
        env["OPENBLAS_NUM_THREADS"] = "1"
        cmd = [sys.executable, str(runner), "--row", row, "--out", str(out), "--recipe", recipe]
        cmd += [f"--deals={args.deals}", f"--ppo-deals={args.ppo_deals}"]
        cmd += [f"--search-games={args.search_games}", f"--aec-passes={args.aec_passes}"]
        cmd += [f"--label-deals={args.label_deals}"]
        cmd += [f"--aec-decisions={args.aec_decisions}", f"--ablate={ablate}"]
        cmd += [f"--selfplay-recipe={args.selfplay_recipe}"]
        done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            tail = "\n".join(done.stderr.strip().splitlines()[-5:])
            return {"error": f"exit {done.returncode}: {tail}"}
        return json.loads(out.read_text())


MEDIANS = ("value", "openspiel", "vs_openspiel", "load_cpu_s", "cpu_s")


def _median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One side's runs of a row: each figure the median over the runs (an error if any run
    failed), the values of every run kept."""
    failed = [r for r in runs if "error" in r]
    if failed:
        return failed[0]
    out = dict(runs[0], runs=[r["value"] for r in runs])
    for key in MEDIANS:
        if key in out:
            out[key] = statistics.median(r[key] for r in runs)
    return out


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.3g}"


LABELS = {
    "search": "search (4 worlds) vs 3 strong",
    "train": "flagship training",
    "selfplay": "self-play trainer (this tree) vs flagship recipe (baseline)",
    "search5": "search@v5 vs 3 strong@v1",
    "search5-8p": "search@v5 vs 7 strong@v1, 8p",
    "label": "expert labels (search@v5)",
    "evaluate": "evaluate strong@v1,greedy",
    "ppo": "evaluate ppo:...,strong",
    "aec": "AEC env, random play, 4p",
}


def _notes(name: str, a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """A search row's CPU ratio, and whether both trees' outputs agree where a row digests them."""
    notes = []
    if name.startswith("search"):
        notes.append(f"CPU per game {b['value'] / a['value']:.2f}x")
    for key, what in (("results", "games"), ("report", "reports"), ("labels", "labels")):
        if key in a and key in b:
            notes.append(f"identical {what}: {'yes' if a[key] == b[key] else '**no**'}")
    return notes


def table(
    results: dict[str, dict[str, dict[str, Any]]], base: str, head: str
) -> tuple[list[str], list[dict[str, Any]]]:
    lines = [
        f"| row | unit | {base} | {head} | ratio (speed-up) | notes |",
        "|---|---|---|---|---|---|",
    ]
    rows = []
    for name, sides in results.items():
        a, b = sides["base"], sides["head"]
        if "error" in a or "error" in b:
            note = a.get("error") or b.get("error")
            lines.append(f"| {LABELS[name]} | | | | | failed: {note.splitlines()[-1]} |")
            rows.append({"row": name, "base": a, "head": b})
            continue
        lower = a.get("higher_is_better") is False
        speedup = a["value"] / b["value"] if lower else b["value"] / a["value"]
        if name == "aec" and "vs_openspiel" in a and "vs_openspiel" in b:
            # Each side against OpenSpiel in its own process: the yardstick cancels the load.
            speedup = b["vs_openspiel"] / a["vs_openspiel"]
        notes = _notes(name, a, b)
        if name == "ppo":
            notes.append(
                f"model load {a['load_cpu_s']:.2f} -> {b['load_cpu_s']:.2f} CPU s, torch "
                f"imported: {a['torch_imported']} -> {b['torch_imported']}"
            )
        if name == "aec" and "vs_openspiel" in b:
            notes.append(
                f"OpenSpiel gin_rummy {_fmt(b['openspiel'])}/CPU-s; ours/OpenSpiel "
                f"{a['vs_openspiel']:.2f}x -> **{b['vs_openspiel']:.2f}x**"
            )
        if name == "train":
            notes.append("each side its own recipe (see the command)")
        if name == "selfplay":
            notes.append("baseline: the flagship recipe (--baseline-recipe); this tree: the "
                         "self-play trainer (--selfplay-recipe)")  # fmt: skip
        lines.append(
            f"| {LABELS[name]} | {a['unit']} | {_fmt(a['value'])} | {_fmt(b['value'])} | "
            f"**{speedup:.2f}x** | {'; '.join(notes)} |"
        )
        rows.append({"row": name, "base": a, "head": b, "speedup": speedup})
    return lines, rows


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``continental speed``."""
    parser = argparse.ArgumentParser(prog="continental speed", description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="HEAD~1", help="baseline revision (default HEAD~1)")
    parser.add_argument("--rows", default=",".join(ROWS), help=f"some of {','.join(ROWS)}")
    parser.add_argument("--json", default=None, help="write the table and raw figures here")
    parser.add_argument("--deals", type=int, default=6, help="evaluate: deals (x4 seatings)")
    parser.add_argument("--ppo-deals", type=int, default=2, help="ppo: deals (x4 seatings)")
    parser.add_argument("--search-games", type=int, default=2, help="search rows: games")
    parser.add_argument("--label-deals", type=int, default=2, help="label: deals")
    parser.add_argument(
        "--repeats", type=int, default=1, help="runs per side and row, alternating (median)"
    )
    parser.add_argument("--aec-passes", type=int, default=7, help="aec: alternating passes")
    parser.add_argument("--aec-decisions", type=int, default=4000, help="aec: decisions a pass")
    parser.add_argument("--recipe", default=RECIPE, help="train flags of this tree")
    parser.add_argument(
        "--baseline-recipe", default=RECIPE_5894364, help="train flags of the baseline tree"
    )
    parser.add_argument(
        "--selfplay-recipe",
        default=SELFPLAY_RECIPE,
        help="selfplay: flags of agents.train.selfplay on this tree (--out is added)",
    )
    parser.add_argument(
        "--ablate",
        default="",
        help=f"train: undo some of {','.join(ABLATIONS)} on this tree (what each lever gave)",
    )
    parser.add_argument("--row", default=None, help=argparse.SUPPRESS)  # internal: one row
    parser.add_argument("--out", default=None, help=argparse.SUPPRESS)
    return parser


def _check(args: argparse.Namespace, parser: argparse.ArgumentParser) -> list[str]:
    """The rows to measure; a bad option is one line naming it (exit status 2)."""
    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    unknown = [r for r in rows if r not in ROWS]
    if unknown or not rows:
        parser.error(f"--rows {args.rows!r}: choose among {','.join(ROWS)}")
    bad = [a for a in args.ablate.split(",") if a and a not in ABLATIONS]
    if bad:
        parser.error(f"--ablate {args.ablate!r}: choose among {','.join(ABLATIONS)}")
    for flag in ("repeats", "deals", "ppo_deals", "search_games", "label_deals", "aec_passes",
                 "aec_decisions"):  # fmt: skip
        if getattr(args, flag) < 1:
            parser.error(f"--{flag.replace('_', '-')} must be at least 1")
    if args.json:
        from agents.cli import check_output_path

        try:
            check_output_path(args.json, "--json")
        except ValueError as exc:
            parser.error(str(exc))
    return rows


def _head_label(here: Path) -> str:
    """This tree's short hash, with ``+changes`` when tracked files differ from it."""
    head = subprocess.run(
        ["git", "-C", str(here), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return f"{head}{'+changes' if dirty else ''}"


def _measure_rows(
    rows: list[str], args: argparse.Namespace, here: Path, base_tree: Path
) -> dict[str, dict[str, dict[str, Any]]]:
    """Each row on both trees, ``--repeats`` times in alternating order; the medians."""
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for row in rows:
        runs: dict[str, list[dict[str, Any]]] = {"base": [], "head": []}
        for r in range(args.repeats):  # alternating order: base first, then head first
            order = ("base", "head") if r % 2 == 0 else ("head", "base")
            for side in order:
                if side == "base":
                    base_row = BASE_ROW.get(row, row)
                    runs[side].append(measure(base_tree, base_row, args, args.baseline_recipe))
                else:
                    runs[side].append(measure(here, row, args, args.recipe, args.ablate))
                print(f"  {row}: {side} {runs[side][-1]}", flush=True)
        results[row] = {side: _median_run(runs[side]) for side in runs}
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.row is not None:
        result = run_row(args.row, args)
        Path(args.out).write_text(json.dumps(result))
        return 0
    rows = _check(args, parser)
    here = REPO
    head_label = _head_label(here)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            base = unpack(args.against, here, Path(tmp))
        except ValueError as exc:
            parser.error(str(exc))
        print(f"speed: {head_label} against {base} ({args.against}); CPU time of each process")
        results = _measure_rows(rows, args, here, Path(tmp))
    lines, table_rows = table(results, base, head_label)
    print("\n".join(lines))
    if args.json:
        report = {
            "command": "continental speed " + " ".join(argv if argv is not None else sys.argv[1:]),
            "base": base,
            "head": head_label,
            "python": sys.version.split()[0],
            "cpus": os.cpu_count(),
            "rows": table_rows,
            "table": lines,
        }
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
