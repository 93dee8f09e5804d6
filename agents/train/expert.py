"""Expert iteration for the contract game's network: the search's decisions as labels.

The network of ``agents/models/ppo_continental_4p.zip`` imitates ``strong`` and plays level with
it; ``search`` (``search@v3``) beats ``strong@v1`` by about 20 points a game. This module turns
the search's play into training data for the network (which then plays without searching):

1. ``label``: one game per deal (its cards from the run's seed and the deal's number), the teacher (default ``search@v3``) at one seat and the
   table's bots (default ``strong@v1``) at the others, the teacher's seat rotating with the
   deal (``--driver AGENT``: that agent plays the seat and the teacher labels the states it
   reaches, the student's own games). Every teacher decision with a choice is logged as ``agents.train.imitation.collect``
   logs ``strong``'s: the ``continental_v1`` observation of that seat (public information only:
   the teacher samples worlds from the same view), the legal actions, the teacher's action, the
   seat's relative reward of the round (for the value head), and two flags: whether the teacher
   searched the decision (``searched``) and whether it left ``strong``'s move (``deviated``).
   Each deal is one file under ``--out``, written atomically; a run that stops resumes where it
   stopped (deals already there are skipped, the settings checked against ``manifest.json``).
2. ``merge``: the deal files as one dataset ``.npz`` in ``imitation``'s format (with the two
   flags), which ``python -m agents.train.imitation clone`` reads. ``--init MODEL`` starts the
   cloning from a model (the shipped network) and ``--searched-weight W`` weighs the searched
   decisions W times in the policy loss.

Run ``python -m agents.train.expert label --out runs/expert/labels --deals 200 --seed S --jobs 2``.
Give every iteration a fresh ``--seed``: the cards depend on the seed and the deal's number only,
so reusing a seed deals an earlier iteration's training deals again (and its held-out split would
then hold deals the ``--init`` model was trained on).
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.contract.feature_agent import feature_observation, observation_size
from agents.contract.view import PlayerView
from continental_env.contract.game import Game
from continental_env.rules import resolve_rules

TEACHER = "search@v3"
TABLE = "strong@v1"
SCHEMA = "continental-expert-labels/1"
DEAL_FILE = re.compile(r"deal-(\d{6})\.npz")
# A deal file's arrays with one row per decision (the others: the legal actions and the
# candidates flat, the deal's score and the teacher's seat).
PER_DECISION = ("obs", "legal_sizes", "actions", "values", "searched", "deviated", "cand_sizes",
                "cand_worlds")  # fmt: skip
SUBSAMPLE_STREAM = 0x5B5A  # the merge's draws, apart from every other use of the seed


def _deal_seed(seed: int, deal: int) -> int:
    from agents.evaluate.harness import derive_seed

    return derive_seed(seed, "expert", deal)


def label_deal(task: tuple) -> dict[str, Any]:
    """The teacher's decisions in one deal (``task``: deal, seed, players, preset, teacher, table,
    rounds or None, driver or None)."""
    from agents import make_agent

    deal, seed, players, preset, teacher_name, tables, rounds, driver_name = task
    table_name = table_for_deal(tables, deal, players)
    game_seed = _deal_seed(seed, deal)
    teacher_seat = deal % players
    rules = resolve_rules(preset)
    if rounds:
        rules = rules.with_rounds(tuple(rounds))
    game = Game.new(rules, players, seed=game_seed)
    bots = [
        make_agent(teacher_name if s == teacher_seat else table_name, seed=game_seed % 2**31 + s)
        for s in range(players)
    ]
    teacher = bots[teacher_seat]
    driver = make_agent(driver_name, seed=game_seed % 2**31 + players) if driver_name else None
    names = ("obs", "legal", "actions", "round", "searched", "deviated", "cands", "means", "worlds")
    rows: dict[str, list] = {k: [] for k in names}
    while not game.is_over:
        seat = game.actor
        choices = game.legal_actions()
        if seat != teacher_seat or len(choices) < 2:
            game.apply(bots[seat].act(PlayerView(game, seat)))
            continue
        action = _label_decision(game, seat, teacher, choices, rows)
        if driver is not None:  # the student plays; the teacher only labels its states
            played = driver.act(PlayerView(game, seat))
            if hasattr(teacher, "observe_own"):
                teacher.observe_own(PlayerView(game, seat), played)
            action = played
        game.apply(action)
    return _deal_arrays(deal, game, teacher_seat, players, rows)


def table_for_deal(tables: str, deal: int, players: int) -> str:
    """The bot at the other seats in ``deal``: ``tables`` is one name or a comma-separated pool,
    each taking ``players`` deals in turn (so each sits at a table with the teacher at every
    seat)."""
    names = tables.split(",")
    return names[(deal // players) % len(names)]


def _label_decision(game: Game, seat: int, teacher: Any, choices: list[int], rows: dict) -> int:
    """The teacher's action at ``seat``, its row appended to ``rows`` (the observation, the
    legal actions, whether it searched and left ``strong``'s move, and its soft targets)."""
    x = feature_observation(game, seat)
    searched = getattr(teacher, "decisions", 0)
    deviated = getattr(teacher, "deviations", 0)
    action = teacher.act(PlayerView(game, seat))
    rows["obs"].append(x.astype(np.float16))
    rows["legal"].append(np.array(choices, dtype=np.int16))
    rows["actions"].append(action)
    rows["round"].append(len(game.round_history))
    rows["searched"].append(getattr(teacher, "decisions", 0) > searched)
    rows["deviated"].append(getattr(teacher, "deviations", 0) > deviated)
    # Soft targets: the searched candidates and their mean outcomes (none when not searched).
    last = getattr(teacher, "last_search", None) if rows["searched"][-1] else None
    cands, means, worlds = last or ([], [], 0)
    rows["cands"].append(np.array(cands, dtype=np.int16))
    rows["means"].append(np.array(means, dtype=np.float32))
    rows["worlds"].append(worlds)
    return action


def _deal_arrays(
    deal: int, game: Game, teacher_seat: int, players: int, rows: dict[str, list]
) -> dict[str, Any]:
    """One labelled deal's arrays: ``rows`` with each decision's round reward."""
    values = []
    for r in rows["round"]:
        points = game.round_history[r]["points"]
        others = (sum(points) - points[teacher_seat]) / (players - 1)
        values.append((others - points[teacher_seat]) / 100.0)
    legal = rows["legal"]
    return {
        "deal": deal,
        "obs": np.stack(rows["obs"])
        if legal
        else np.zeros((0, observation_size(players)), np.float16),
        "legal_flat": np.concatenate(legal or [np.zeros(0)]).astype(np.int16),
        "legal_sizes": np.array([len(r) for r in legal], dtype=np.int64),
        "actions": np.array(rows["actions"], dtype=np.int64),
        "values": np.array(values, dtype=np.float32),
        "searched": np.array(rows["searched"], dtype=bool),
        "deviated": np.array(rows["deviated"], dtype=bool),
        "cand_flat": np.concatenate(rows["cands"] or [np.zeros(0)]).astype(np.int16),
        "cand_values": np.concatenate(rows["means"] or [np.zeros(0)]).astype(np.float32),
        "cand_sizes": np.array([len(c) for c in rows["cands"]], dtype=np.int64),
        "cand_worlds": np.array(rows["worlds"], dtype=np.int64),
        "score": np.array(game.scores, dtype=np.int64),
        "seat": np.array(teacher_seat),
    }


def _manifest(seed: int, players: int, preset: str, teacher: str, table: str,
              rounds: Sequence[int] | None, driver: str | None) -> dict[str, Any]:  # fmt: skip
    return {"schema": SCHEMA, "seed": seed, "players": players, "preset": preset,
            "rounds": list(rounds) if rounds else None, "teacher": teacher, "table": table,
            "driver": driver, "observation": "continental_v1"}  # fmt: skip


def _deal_path(out: Path, deal: int) -> Path:
    return out / f"deal-{deal:06d}.npz"


def _save_deal(out: Path, part: dict[str, Any]) -> None:
    path = _deal_path(out, part["deal"])
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp.npz")  # not matched by deal-*.npz
    np.savez_compressed(tmp, **{k: v for k, v in part.items() if k != "deal"})
    os.replace(tmp, path)


def label(
    out: str,
    deals: int,
    seed: int,
    players: int = 4,
    preset: str = "continental",
    teacher: str = TEACHER,
    table: str = TABLE,
    jobs: int = 1,
    rounds: Sequence[int] | None = None,
    driver: str | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Label deals 0..``deals``-1 into the directory ``out`` (resuming; see the module).

    ``driver`` (an agent name, e.g. ``ppo:PATH``) plays the teacher's seat while the teacher only
    labels the states it reaches (DAgger: the states of the student's own games).
    """
    from tqdm import tqdm

    from agents.registry import versioned_name

    if deals < 1:
        raise ValueError(f"deals={deals}: must be at least 1")
    if jobs < 1:
        raise ValueError(f"jobs={jobs}: must be at least 1")
    resolve_rules(preset).check_players(players)
    tables = [t for t in table.split(",") if t]
    if not tables:
        raise ValueError(f"table={table!r}: name the bot of the other seats")
    _check_agents([n for n in (teacher, *tables, driver) if n])
    # the versions they play: a resumed run cannot mix two versions behind one name
    teacher = versioned_name(teacher)
    table = ",".join(versioned_name(t) for t in tables)
    driver = versioned_name(driver) if driver else None
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    _check_or_write_manifest(out, _manifest(seed, players, preset, teacher, table, rounds, driver))
    todo = [d for d in range(deals) if not _deal_path(root, d).exists()]
    tasks = [(d, seed, players, preset, teacher, table, rounds, driver) for d in todo]
    t0, c0 = time.time(), time.process_time()
    bar = tqdm(total=deals, initial=deals - len(todo), desc="deals", unit="deal",
               file=sys.stderr, mininterval=10, disable=not progress)  # fmt: skip
    _label_tasks(root, tasks, jobs, bar.update)
    bar.close()
    summary = {"deals": deals, "labelled_now": len(todo), "seconds": time.time() - t0,
               "parent_cpu_seconds": time.process_time() - c0}  # fmt: skip
    print(json.dumps(summary), flush=True)
    return summary


def _check_agents(names: list[str]) -> None:
    """ValueError for an oracle (labels come from public information only) or an unknown name,
    before any game."""
    from agents import make_agent
    from agents.evaluate.deals import refuse_oracles

    refuse_oracles(names, False)
    for name in names:
        make_agent(name, seed=0)


def _check_or_write_manifest(out: str, manifest: dict[str, Any]) -> None:
    """Write ``manifest.json`` into the new label directory ``out`` (atomically); in one labelled
    before, ValueError if it was labelled with other settings."""
    mpath = Path(out) / "manifest.json"
    if mpath.exists():
        found = json.loads(mpath.read_text())
        diff = {k: (found.get(k), v) for k, v in manifest.items() if found.get(k) != v}
        if diff:
            raise ValueError(f"{out}: labelled with other settings (found, asked): {diff}")
    else:
        tmp = mpath.with_name(f".manifest.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(manifest, indent=2))
        os.replace(tmp, mpath)


def _label_tasks(root: Path, tasks: list[tuple], jobs: int, done: Callable[[], object]) -> None:
    """Label and save each deal of ``tasks`` (``label_deal``'s), in ``jobs`` processes, calling
    ``done()`` after each."""
    import multiprocessing

    if jobs == 1:
        for task in tasks:
            _save_deal(root, label_deal(task))
            done()
    else:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for part in pool.imap_unordered(label_deal, tasks):
                _save_deal(root, part)
                done()


def merge(
    directory: str, out: str, deals: int | None = None, unsearched_share: float = 1.0
) -> dict[str, Any]:
    """The deal files of ``directory`` as one ``imitation`` dataset at ``out`` (atomic);
    ``deals``: only deals 0 to ``deals - 1``, all of which must be there (so a dataset made
    while the labelling went on can be made again after it has labelled more).

    ``unsearched_share`` below 1 keeps every decision the teacher searched and that share of
    the others, drawn per deal from a generator seeded by the labelling's seed and the deal's
    number (the same dataset every time): the decisions where a search teacher only plays its
    prior's move are most of the labels and carry none of the search, so a large run keeps its
    memory for the searched ones.
    """
    root = Path(directory)
    mpath = root / "manifest.json"
    if not mpath.exists():
        raise ValueError(f"{directory}: no manifest.json (not a label directory)")
    if deals is not None and deals < 1:
        raise ValueError(f"--deals {deals}: must be at least 1")
    if not (math.isfinite(unsearched_share) and 0 < unsearched_share <= 1):
        raise ValueError(f"--unsearched-share {unsearched_share}: must be in (0, 1]")
    manifest = json.loads(mpath.read_text())
    parts = [
        _subsample(_read_deal(f), unsearched_share, manifest["seed"])
        for f in _deal_files(directory, deals)
    ]
    data = _concatenate(parts)
    meta = _merged_meta(manifest, len(parts)) | {"unsearched_share": unsearched_share}
    data["meta"] = np.array(json.dumps(meta))
    tmp = f"{out}.{os.getpid()}.tmp.npz"
    np.savez_compressed(tmp, **data)
    os.replace(tmp, out)
    summary = {
        "deals": len(parts),
        "decisions": len(data["actions"]),
        "searched": int(data["searched"].sum()),
        "deviated": int(data["deviated"].sum()),
        "out": out,
    }
    print(json.dumps(summary), flush=True)
    return summary


def _deal_number(path: Path) -> int:
    return int(path.stem[len("deal-") :])


def _deal_files(directory: str, deals: int | None) -> list[Path]:
    """The deal files of ``directory`` in deal order (with ``deals``: those of deals 0 to
    ``deals - 1``, ValueError unless all are there); ValueError for none."""
    root = Path(directory)
    files = sorted(f for f in root.glob("deal-*.npz") if DEAL_FILE.fullmatch(f.name))
    if deals is not None:
        files = [f for f in files if _deal_number(f) < deals]
        if len(files) < deals:
            have = {_deal_number(f) for f in files}
            missing = [d for d in range(deals) if d not in have]
            raise ValueError(
                f"--deals {deals}: {directory} lacks {len(missing)} of deals 0 to {deals - 1} "
                f"(first missing: {missing[0]})"
            )
    if not files:
        raise ValueError(f"{directory}: no labelled deals")
    return files


def _read_deal(path: Path) -> dict[str, Any]:
    """One deal file's arrays, and its deal number as ``deal``."""
    with np.load(path) as data:
        return {k: data[k] for k in data.files} | {"deal": _deal_number(path)}


def _subsample(part: dict[str, Any], share: float, seed: int) -> dict[str, Any]:
    """``part`` (one deal's arrays) with every searched decision and a ``share`` of the others
    (all of them at ``share`` 1); the ragged arrays (legal actions, candidates) cut to match."""
    if share >= 1.0:
        return part
    n = len(part["actions"])
    draw = np.random.default_rng([seed, part["deal"], SUBSAMPLE_STREAM]).random(n)
    keep = part["searched"].astype(bool) | (draw < share)
    out = dict(part)
    for key in PER_DECISION:
        if key in part:
            out[key] = part[key][keep]
    out["legal_flat"] = part["legal_flat"][np.repeat(keep, part["legal_sizes"])]
    if "cand_sizes" in part:
        ragged = np.repeat(keep, part["cand_sizes"])
        out["cand_flat"] = part["cand_flat"][ragged]
        out["cand_values"] = part["cand_values"][ragged]
    return out


def _concatenate(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The deals' arrays end to end, in ``imitation``'s dataset format (legal actions flat, with
    offsets; each decision's deal number)."""
    sizes = np.concatenate([p["legal_sizes"] for p in parts])
    return {
        "obs": np.concatenate([p["obs"] for p in parts]),
        "legal_flat": np.concatenate([p["legal_flat"] for p in parts]),
        "legal_offsets": np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        "actions": np.concatenate([p["actions"] for p in parts]),
        "values": np.concatenate([p["values"] for p in parts]),
        "searched": np.concatenate([p["searched"] for p in parts]),
        "deviated": np.concatenate([p["deviated"] for p in parts]),
        "deal": np.concatenate([np.full(len(p["actions"]), p["deal"], np.int32) for p in parts]),
        **_soft_targets(parts),
    }


def _soft_targets(parts: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """The searched candidates and their mean outcomes, flat with offsets (``cand_offsets``);
    a deal labelled before they were recorded counts as searched without candidates."""
    flat, values, sizes, worlds = [], [], [], []
    for p in parts:
        n = len(p["actions"])
        flat.append(p.get("cand_flat", np.zeros(0, np.int16)))
        values.append(p.get("cand_values", np.zeros(0, np.float32)))
        sizes.append(p.get("cand_sizes", np.zeros(n, np.int64)))
        worlds.append(p.get("cand_worlds", np.zeros(n, np.int64)))
    size = np.concatenate(sizes)
    return {
        "cand_flat": np.concatenate(flat).astype(np.int16),
        "cand_values": np.concatenate(values).astype(np.float32),
        "cand_offsets": np.concatenate([[0], np.cumsum(size)]).astype(np.int64),
        "cand_worlds": np.concatenate(worlds).astype(np.int64),
    }


def _merged_meta(manifest: dict[str, Any], deals: int) -> dict[str, Any]:
    """The dataset's ``meta``: the labelling's settings and the number of deals merged."""
    return {"players": manifest["players"], "preset": manifest["preset"], "features": True,
            "seed": manifest["seed"], "deals": deals, "teacher": manifest["teacher"],
            "table": manifest["table"], "driver": manifest.get("driver"),
            "rounds": manifest.get("rounds")}  # fmt: skip


def build_parser() -> Any:
    """The command line: ``label`` and ``merge``."""
    from agents.cli import ArgumentParser

    parser = ArgumentParser(
        prog="python -m agents.train.expert", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    lab = sub.add_parser("label", help="log the teacher's decisions, one file per deal (resumes)")
    lab.add_argument("--out", required=True, help="the label directory")
    lab.add_argument("--deals", type=int, default=100)
    lab.add_argument("--seed", type=int, required=True)
    lab.add_argument("--players", type=int, default=4)
    lab.add_argument("--preset", default="continental")
    lab.add_argument("--teacher", default=TEACHER)
    lab.add_argument("--table", default=TABLE,
                     help="the bot at the other seats, or a comma-separated pool of them: each "
                          "takes --players deals in turn")  # fmt: skip
    lab.add_argument("--driver", default=None,
                     help="the agent that plays the labelled seat (default: the teacher)")  # fmt: skip
    lab.add_argument("--jobs", type=int, default=1)
    lab.add_argument("--no-progress", action="store_true")
    mer = sub.add_parser("merge", help="one imitation dataset from a label directory")
    mer.add_argument("--labels", required=True)
    mer.add_argument("--out", required=True)
    mer.add_argument("--deals", type=int, default=None,
                     help="only deals 0 to N-1, all of which must be labelled (default: every deal there)")  # fmt: skip
    mer.add_argument("--unsearched-share", type=float, default=1.0,
                     help="keep every searched decision and this share of the others "
                          "(default 1: all)")  # fmt: skip
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m agents.train.expert COMMAND``: a bad option is one line (exit status 2)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "label":
            label(args.out, args.deals, args.seed, args.players, args.preset, args.teacher,
                  args.table, args.jobs, driver=args.driver, progress=not args.no_progress)  # fmt: skip
        else:
            merge(args.labels, args.out, deals=args.deals, unsearched_share=args.unsearched_share)
    except ValueError as exc:
        parser.error(str(exc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
