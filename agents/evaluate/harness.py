"""Evaluate bots against each other on duplicate deals: ``continental evaluate``.

``python -m agents.evaluate`` is the same command. Agents, models (present, readable, trained for
this table size) and the ``--json``/``--plot`` paths are checked before the first game; a problem
is one line naming it (exit status 2).

```
continental evaluate --agents strong,greedy --players 4 --games 2000 --seed 0 --jobs 2 \\
    --json results/ladder_strong_greedy.json --plot results/ladder_strong_greedy.png
```

**Games.** ``--game contract`` (default), ``fifteen``, or any game registered in
``agents.games`` (one ``GameSpec`` entry: how to create a game from a seed, whose turn it is, the
seat's view for the bots, the final scores and which way is better). Game options go through
``--set key=value`` (the fifteen-card game: ``--set target=100``); ``--preset`` and ``--rounds``
are the contract game's. Points are lower-is-better in the contract game, chips higher-is-better
in the fifteen-card game; the report names the unit and the direction (``config.unit``,
``config.higher_is_better``) and keeps its key names for every game: ``mean_points`` is the mean
final score in that unit, ``points_by_round`` the mean score by round or hand.

```
python -m agents.evaluate --game fifteen --agents greedy,random --players 4 --games 1000 --seed 2026
```

**Seating.** The first agent is the candidate; the other seats are filled with the remaining
agents in turn (``strong,greedy`` at 4 players: strong, greedy, greedy, greedy;
``strong,greedy,random``: strong, greedy, random, greedy).

**Duplicate deals.** ``--games N`` is the number of *deals*. Every deal is one game seed
(derived from ``--seed`` and the deal's index) and is played once per seat rotation — the whole
line-up rotated so the candidate sits in every seat — on the identical deck order, so ``N x
players`` games in all and the luck of the cards cancels. The engine deals every round from its
own seed (drawn when the game is created), so a re-formed stock in one rotation cannot change
that rotation's later deals; ``duplicate.identical_round_deals`` (the fraction of (deal, round)
pairs dealt identically in every rotation that reached that round or hand) checks it is 1.
Agents get their own seeds, derived the same way. Results depend only on ``--seed``, never on
``--jobs``.

**Statistics.** Each agent's games in one deal are averaged first (games of a deal are
correlated); means and 95% Student-t intervals are then taken over deals. ``paired`` compares the
candidate with each opponent on per-deal differences: points per game, win rate, and round by
round (``by_round``), each with its t interval and the per-deal SD that sizes the next run
(``agents.evaluate.stats.deals_for_half_width``). Win rate is the share of games an agent's seat won (the
best total: lowest points, highest chips; ties split); its interval is a t interval over the
per-deal win shares (a deal's rotations share the cards, so they are not independent trials).
Rates of rounds (closers) keep a Wilson interval over seat-rounds. OpenSkill (Plackett-Luce) ratings are updated game by game in
deal order; an agent in several seats of a game gets the mean of its seats' updated ratings.

**Versions.** ``config.versions`` and each agent's ``version`` say which frozen bot a name
played (``strong`` -> ``strong@v1``, ``agents.versioned_name``); the text report prints both.
Agents whose names contain ``oracle`` read the hidden state and are refused unless
``--allow-oracle`` (``allow_oracle=True``) is given.

**Long runs.** ``--checkpoint PATH`` appends every finished deal to PATH as one JSON line (written,
flushed and fsynced before the next deal counts); ``--resume`` reads it back, drops a last line
cut short by an interruption, refuses a file written by another evaluation, and plays only the
deals still missing: the final report equals an uninterrupted run's (timing aside). ``--sprt
D0,D1`` screens quickly: a sequential probability ratio test on the per-deal gain of the
candidate over the first opponent (``agents.evaluate.stats.SPRT``) stops the run as soon as it decides
between a gain of D0 and of D1 (``report["sequential"]``); a screening result, not a decisive
measurement. ``--mixed NAMES`` also plays the candidate at a table of those agents on the same
seed (``report["mixed"]``), e.g. ``--mixed search,ppo:agents/models/ppo_continental_4p.zip,strong``.

**JSON schema** (``--json PATH``; ``schema`` = ``"continental-eval/1"``)::

    {
      "schema": "continental-eval/1",
      "config": {"agents": [...], "lineup": [...], "versions": {name: version}, "players": P, "deals": N, "games": N*P,
                 "seed": S, "game": "contract", "unit": "points", "higher_is_better": false,
                 "options": {...}, "preset": "...", "rounds": [...], "jobs": J},
                 # preset and rounds: the contract game only
      "candidate": "<name>",
      "agents": {
        "<name>": {
          "version": "strong@v1", "mean_points_sd_per_deal": x,
          "seats": <seats it filled per game>, "games": <seat-games played>,
          "mean_points": x, "mean_points_ci95": [lo, hi],
          "mean_points_per_round": x, "mean_points_per_round_ci95": [lo, hi],
          "mean_diff_vs_table": x, "mean_diff_vs_table_ci95": [lo, hi],
          "win_rate": x, "win_rate_ci95": [lo, hi],
          "points_by_round": {"1": x, ..., "7": x},
          "openskill": {"mu": x, "sigma": x, "ordinal": x},
          "close_rate": x, "close_rate_ci95": [lo, hi]   # contract game: rounds it closed
        }, ...
      },
      "paired": {"<opponent>": {"mean_diff": x, "ci95": [lo, hi], "sd_per_deal": x,
                                "win_rate_diff": x, "win_rate_diff_ci95": [lo, hi],
                                "by_round": {"1": {"mean_diff": x, "ci95": [lo, hi], "deals": n}}}},
                    # candidate - opponent
      "sequential": {...},   # with --sprt only
      "mixed": {"lineup": [...], "versions": {...}, "deals": N, "agents": {...}, "paired": {...}},
      "rounds": {"rounds": R, "without_closer": K, "without_closer_rate": x,
                 "without_closer_rate_ci95": [lo, hi]},   # contract game only (else null)
      "duplicate": {"rotations": P, "identical_round_deals": f},
      "timing": {"seconds": s, "games_per_s": g, "decisions_per_s": d, "cpu_seconds": c,
                 "cpu_s_per_game": x, "decisions": n, "resumed_deals": k}
    }

Points are a game's total (lower is better in the contract game; chips, higher is better, in the
fifteen-card game); ``mean_diff_vs_table`` is own score minus the mean of the other seats in the
same game. ``timing`` is the only part that varies between runs.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Iterable, Sequence
from contextlib import ExitStack
from itertools import groupby
from typing import Any

from agents import is_oracle, versioned_name
from agents.bots.ppo_agent import check_table
from agents.cli import (
    ArgumentParser,
    check_output_path,
    check_plot_path,
    parse_names,
    parse_rounds,
    write_json_atomic,
)
from agents.evaluate.stats import (
    SPRT,
    diff_vs_table,
    mean_ci95,
    paired_diff_ci95,
    rate_ci95,
    sample_sd,
    wilson_ci95,
    win_shares,
)
from agents.games import DEFAULT_GAME, GameSpec, game_names, game_spec
from continental_env.rules import RuleConfig, contract_for_round, resolve_rules

SCHEMA = "continental-eval/1"
CHECKPOINT_SCHEMA = "continental-eval-checkpoint/1"


# ----------------------------------------------------------------------------- seating and seeds


def lineup(agents: Sequence[str], players: int) -> list[str]:
    """Seat 0 is the candidate; the other seats cycle through the remaining agents."""
    if not agents:
        raise ValueError("need at least one agent")
    others = list(agents[1:]) or [agents[0]]
    return [agents[0]] + [others[i % len(others)] for i in range(players - 1)]


def rotations(base: Sequence[str]) -> list[list[str]]:
    """The line-up rotated so the candidate (seat 0 of ``base``) sits in seat k, k = 0..P-1."""
    p = len(base)
    return [[base[(s - k) % p] for s in range(p)] for k in range(p)]


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from the parts (stable across runs, platforms and processes)."""
    text = ":".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


# ----------------------------------------------------------------------------- playing


def play_game(
    names: Sequence[str],
    game_seed: int,
    agent_seeds: Sequence[int],
    game: str | GameSpec = DEFAULT_GAME,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One full game; returns final scores, per-round (or hand) scores, decisions and deal
    fingerprints.

    The engines deal every round (hand) from its own seed, drawn from ``game_seed`` when the game
    is created, so each deal's cards are the same in every rotation whatever happened earlier;
    the fingerprints let the report check it.
    """
    spec = game_spec(game) if isinstance(game, str) else game
    state = spec.new_game(len(names), game_seed, dict(options or {}))
    bots = [spec.make_agent(name, seed) for name, seed in zip(names, agent_seeds, strict=True)]
    for bot in bots:  # diagnostics that read the true hidden state (refused unless allowed)
        if getattr(bot, "reads_hidden_state", False):
            bot.attach(state)
    fingerprints = [spec.deal_fingerprint(state)]
    deal = spec.deal_number(state)
    decisions = 0
    while not state.is_over:
        seat = state.actor
        state.apply(bots[seat].act(spec.view(state, seat)))
        decisions += 1
        if spec.deal_number(state) != deal and not state.is_over:
            deal = spec.deal_number(state)
            fingerprints.append(spec.deal_fingerprint(state))
    segments = spec.segments(state)
    return {
        "closers": spec.closers(state) if spec.closers else None,
        "scores": spec.final_scores(state),
        "segment_scores": [list(values) for _label, values in segments],
        "segments": [label for label, _values in segments],
        "decisions": decisions,
        "fingerprints": fingerprints,
    }


def play_deal(
    task: tuple[int, int, list[list[str]], str, dict[str, Any]],
) -> dict[str, Any]:
    """Every rotation of one deal: (deal, seed, seatings, game, options)."""
    deal, seatings = task[0], task[2]
    played = [play_seating((*task, k)) for k in range(len(seatings))]
    return {"deal": deal, "games": [p["game"] for p in played],
            "cpu_s": sum(p["cpu_s"] for p in played)}  # fmt: skip


def play_seating(
    task: tuple[int, int, list[list[str]], str, dict[str, Any], int],
) -> dict[str, Any]:
    """One seating ``k`` of a deal (a worker's unit of work, so progress moves game by game)."""
    deal, seed, seatings, game, options, k = task
    cpu = time.process_time()
    game_seed = derive_seed(seed, "deal", deal)
    names = seatings[k]
    agent_seeds = [derive_seed(seed, "agent", deal, k, s) for s in range(len(names))]
    result = play_game(names, game_seed, agent_seeds, game, options)
    return {"deal": deal, "game": result, "cpu_s": time.process_time() - cpu}


def _run_deals(tasks: list, jobs: int, progress: bool) -> Iterable[dict[str, Any]]:
    """Each deal's result, deal by deal, played seating by seating; the bar counts games."""
    from tqdm import tqdm

    seat_tasks = [(*task, k) for task in tasks for k in range(len(task[2]))]
    bar = tqdm(total=len(seat_tasks), desc="games", unit="game", disable=not progress,
               file=sys.stderr)  # fmt: skip
    try:
        with ExitStack() as stack:
            played: Iterable[dict[str, Any]] = map(play_seating, seat_tasks)
            if jobs > 1:
                ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
                pool = stack.enter_context(ctx.Pool(jobs))
                played = pool.imap(play_seating, seat_tasks, chunksize=1)  # in task order
            for deal, group in groupby(played, key=lambda p: p["deal"]):
                games, cpu = [], 0.0
                for p in group:
                    games.append(p["game"])
                    cpu += p["cpu_s"]
                    bar.update()
                yield {"deal": deal, "games": games, "cpu_s": cpu}
    finally:
        bar.close()


# ----------------------------------------------------------------------------- the evaluation


def _checkpoint_header(config: dict[str, Any]) -> dict[str, Any]:
    """What a checkpoint must agree on to be resumed: everything that decides the games."""
    keys = ("agents", "lineup", "players", "seed", "game", "options", "preset", "rounds")
    return {"schema": CHECKPOINT_SCHEMA, **{k: config[k] for k in keys if k in config}}


def load_checkpoint(path: str, header: dict[str, Any]) -> list[dict[str, Any]]:
    """The deals already played in the checkpoint at ``path`` (JSON lines: a header, then one
    line per deal in deal order). A trailing line cut short by an interruption is dropped (and
    cut from the file); ValueError if the file belongs to another evaluation."""
    with open(path, "rb") as fh:
        data = fh.read()
    lines = data.split(b"\n")
    good = 0  # bytes of complete, parseable lines
    results: list[dict[str, Any]] = []
    for i, line in enumerate(lines):
        if i == len(lines) - 1:
            break  # the text after the last newline: empty, or a line cut short
        try:
            entry = json.loads(line)
        except ValueError:
            break
        if i == 0:
            if entry != header:
                diff = sorted(k for k in set(entry) | set(header) if entry.get(k) != header.get(k))
                raise ValueError(
                    f"--checkpoint {path}: it was written by another evaluation "
                    f"(differs in {', '.join(diff)}); use a new path or the same arguments"
                )
        else:
            if entry.get("deal") != len(results):
                raise ValueError(f"--checkpoint {path}: deal {entry.get('deal')} out of order")
            results.append(entry)
        good += len(line) + 1
    if good == 0:
        raise ValueError(f"--checkpoint {path}: no header line; not an evaluation checkpoint")
    if good < len(data):
        with open(path, "r+b") as fh:
            fh.truncate(good)
    return results


class _Checkpoint:
    """Appends one deal per line, flushed and fsynced: an interruption loses at most the deal
    being written, which ``load_checkpoint`` drops."""

    def __init__(self, path: str, header: dict[str, Any], fresh: bool) -> None:
        self.fh = open(path, "w" if fresh else "a")  # noqa: SIM115 (closed by close())
        if fresh:
            self.write(header)

    def write(self, entry: dict[str, Any]) -> None:
        self.fh.write(json.dumps(entry, separators=(",", ":")) + "\n")
        self.fh.flush()
        os.fsync(self.fh.fileno())

    def close(self) -> None:
        self.fh.close()


def evaluate(
    agents: Sequence[str],
    players: int = 4,
    games: int = 100,
    seed: int = 0,
    jobs: int = 1,
    preset: str | RuleConfig = "continental",
    rounds: Sequence[int] | None = None,
    progress: bool = False,
    game: str = DEFAULT_GAME,
    options: dict[str, Any] | None = None,
    *,
    checkpoint: str | None = None,
    resume: bool = False,
    sprt: SPRT | None = None,
    mixed: Sequence[str] | None = None,
    allow_oracle: bool = False,
) -> dict[str, Any]:
    """Play ``games`` duplicate deals and return the report (the JSON schema above).

    ``preset`` and ``rounds`` are the contract game's; ``options`` are any game's
    (``agents.games``), e.g. ``{"target": 100}`` for the fifteen-card game. ``checkpoint``: a
    file that receives every deal as it ends; with ``resume`` the deals already there are not
    played again (the final report is the one an uninterrupted run gives, timing aside).
    ``sprt``: stop early once the sequential test decides (``games`` is then the most deals).
    ``mixed``: the candidate is also played at a table of these agents (``report["mixed"]``).
    Agents whose names contain ``oracle`` read the hidden state: refused unless ``allow_oracle``.
    """
    from openskill.models import PlackettLuce

    refuse_oracles(list(agents) + list(mixed or ()), allow_oracle)
    spec = game_spec(game)
    options = dict(options or {})
    rules = None
    if spec.name == "contract":
        rules = resolve_rules(options.pop("preset", None) or preset)
        chosen = options.pop("rounds", None) or rounds
        if chosen:
            rules = rules.with_rounds(tuple(chosen))
        if options:
            raise ValueError(f"unknown options for the contract game: {sorted(options)}")
        options = {"rules": rules.to_dict()}
    spec.check_options(players, options)
    if games < 1:
        raise ValueError("--games must be at least 1")
    if resume and not checkpoint:
        raise ValueError("--resume needs --checkpoint PATH")
    base = lineup(agents, players)
    if sprt is not None and len(set(base)) < 2:
        raise ValueError("--sprt compares the candidate with an opponent: name two agents")
    for name in dict.fromkeys([*agents, *(mixed or ())]):
        # Fail fast, before any game: a bad name, a missing model, a model for another table.
        check_table(spec.make_agent(name, 0), players)
    seatings = rotations(base)
    names = list(dict.fromkeys(base))
    candidate = base[0]
    config: dict[str, Any] = {
        "agents": list(agents),
        "lineup": base,
        # Frozen versions (strong@v1 ...) are the contract game's bots; a side game's names are
        # their own versions.
        "versions": {n: versioned_name(n) if spec.name == "contract" else n for n in names},
        "players": players,
        "deals": games,
        "games": games * players,
        "seed": seed,
        "game": spec.name,
        "unit": spec.unit,
        "higher_is_better": spec.higher_is_better,
        "options": {} if rules is not None else options,
        **({"preset": rules.name, "rounds": list(rules.rounds)} if rules is not None else {}),
        "jobs": jobs,
    }
    header = _checkpoint_header(config)
    done: list[dict[str, Any]] = []
    if checkpoint and resume and os.path.exists(checkpoint):
        done = load_checkpoint(checkpoint, header)[:games]
    sign = spec.sign()  # +1: higher scores are better
    opponent = names[1] if len(names) > 1 else None
    test = sprt.start() if sprt is not None else None

    results: list[dict[str, Any]] = []
    start = time.perf_counter()

    def take(result: dict[str, Any]) -> bool:
        """Keep a deal's result; True once the sequential test has decided."""
        results.append(result)
        if test is None:
            return False
        pts = _deal_points(result, seatings, names)
        return test.update(sign * (pts[candidate] - pts[opponent])) is not None

    stopped = False
    for result in done:
        if take(result):
            stopped = True
            break
    if not stopped and len(results) < games:
        writer = _Checkpoint(checkpoint, header, fresh=not done) if checkpoint else None
        try:
            tasks = [(d, seed, seatings, spec.name, options) for d in range(len(results), games)]
            for result in _run_deals(tasks, jobs, progress):
                if writer is not None:
                    writer.write(result)
                if take(result):
                    break
        finally:
            if writer is not None:
                writer.close()
    seconds = time.perf_counter() - start
    report = _aggregate(results, config, seatings, names, candidate, sign, PlackettLuce())
    report["timing"] = _timing(results, seconds, len(done))
    if test is not None:
        report["sequential"] = test.summary(candidate, opponent)
    if mixed:
        sub = evaluate(
            [candidate, *mixed], players, games, seed, jobs, preset, rounds, progress, game,
            None if rules is not None else options,
            checkpoint=checkpoint + ".mixed" if checkpoint else None, resume=resume,
            allow_oracle=allow_oracle,
        )  # fmt: skip
        report["mixed"] = {
            "lineup": sub["config"]["lineup"],
            "versions": sub["config"]["versions"],
            "deals": sub["config"]["deals"],
            "agents": sub["agents"],
            "paired": sub["paired"],
            "timing": sub["timing"],
        }
    return report


def refuse_oracles(names: Sequence[str], allow: bool) -> None:
    """ValueError for an agent that reads the true hidden state, unless ``allow``."""
    for name in names:
        if is_oracle(name) and not allow:
            raise ValueError(
                f"agent {name!r} reads the true hidden state (an oracle diagnostic), not a "
                f"player; pass --allow-oracle (allow_oracle=True) to run it as a diagnostic"
            )


def _deal_points(
    result: dict[str, Any], seatings: list[list[str]], names: list[str]
) -> dict[str, float]:
    """Each agent's mean final score over its seats in one deal's games."""
    acc: dict[str, list[float]] = {n: [] for n in names}
    for k, g in enumerate(result["games"]):
        for s, n in enumerate(seatings[k]):
            acc[n].append(g["scores"][s])
    return {n: sum(v) / len(v) for n, v in acc.items()}


def _timing(results: list[dict[str, Any]], seconds: float, resumed: int) -> dict[str, Any]:
    """Wall time of this process; CPU time of every deal's games (resumed deals included)."""
    games = sum(len(r["games"]) for r in results)
    decisions = sum(g["decisions"] for r in results for g in r["games"][:])
    played = results[resumed:]
    played_decisions = sum(g["decisions"] for r in played for g in r["games"])
    played_games = sum(len(r["games"]) for r in played)
    cpu = sum(r.get("cpu_s", 0.0) for r in results)
    return {
        "seconds": seconds,
        "games_per_s": played_games / seconds if seconds > 0 else float("inf"),
        "decisions_per_s": played_decisions / seconds if seconds > 0 else float("inf"),
        "cpu_seconds": cpu,
        "cpu_s_per_game": cpu / games if games else 0.0,
        "decisions": decisions,
        "resumed_deals": resumed,
    }


def _aggregate(
    results: list[dict[str, Any]],
    config: dict[str, Any],
    seatings: list[list[str]],
    names: list[str],
    candidate: str,
    sign: int,
    model: Any,
) -> dict[str, Any]:
    """The report (timing aside) from the deals' results, in deal order."""
    base = seatings[0]
    players = len(base)
    deals = len(results)
    per_deal: dict[str, dict[str, list[float]]] = {
        n: {"points": [], "per_round": [], "diff": [], "win": []} for n in names
    }
    # Per agent and round (hand): its mean score in each deal that reached it.
    round_deals: dict[str, dict[str, dict[int, float]]] = {n: {} for n in names}
    by_round: dict[str, dict[str, list[float]]] = {n: {} for n in names}
    ratings = {n: model.rating(name=n) for n in names}
    identical = 0
    round_pairs = 0
    # Rounds (contract game): how many ended, how many without a closer, how many each agent's
    # seats closed and sat in.
    closing = {"rounds": 0, "without_closer": 0}
    closed_by = dict.fromkeys(names, 0)
    seat_rounds = dict.fromkeys(names, 0)
    for d, result in enumerate(results):
        acc = {n: {"points": [], "per_round": [], "diff": [], "win": []} for n in names}
        racc: dict[str, dict[str, list[float]]] = {n: {} for n in names}
        prints = [g["fingerprints"] for g in result["games"]]
        for r in range(max(len(p) for p in prints)):
            round_pairs += 1
            # Rotations that reached this deal (a fifteen-card game's length varies).
            seen = {p[r] for p in prints if r < len(p)}
            identical += len(seen) == 1
        for k, g in enumerate(result["games"]):
            seat_names = seatings[k]
            scores = g["scores"]
            diffs = diff_vs_table(scores)
            wins = win_shares([-sign * x for x in scores])  # the best total wins
            segments = max(1, len(g["segments"]))
            for s, n in enumerate(seat_names):
                acc[n]["points"].append(scores[s])
                acc[n]["per_round"].append(scores[s] / segments)
                acc[n]["diff"].append(diffs[s])
                acc[n]["win"].append(wins[s])
            for label, pts in zip(g["segments"], g["segment_scores"], strict=True):
                for s, n in enumerate(seat_names):
                    by_round[n].setdefault(label, []).append(pts[s])
                    racc[n].setdefault(label, []).append(pts[s])
            _rate(model, ratings, seat_names, [-sign * x for x in scores])
            for closer in g["closers"] or ():
                closing["rounds"] += 1
                closing["without_closer"] += closer is None
                if closer is not None:
                    closed_by[seat_names[closer]] += 1
                for n in seat_names:
                    seat_rounds[n] += 1
        for n in names:
            for key in ("points", "per_round", "diff", "win"):
                values = acc[n][key]
                per_deal[n][key].append(sum(values) / len(values))
            for label, values in racc[n].items():
                round_deals[n].setdefault(label, {})[d] = sum(values) / len(values)

    report_agents: dict[str, Any] = {}
    for n in names:
        pts = mean_ci95(per_deal[n]["points"])
        per_round = mean_ci95(per_deal[n]["per_round"])
        diff = mean_ci95(per_deal[n]["diff"])
        win = rate_ci95(per_deal[n]["win"])
        rating = ratings[n]
        report_agents[n] = {
            "version": config["versions"][n],
            "seats": base.count(n),
            "games": base.count(n) * players * deals,
            "mean_points": pts[0],
            "mean_points_ci95": [pts[1], pts[2]],
            "mean_points_sd_per_deal": sample_sd(per_deal[n]["points"]),
            "mean_points_per_round": per_round[0],
            "mean_points_per_round_ci95": [per_round[1], per_round[2]],
            "mean_diff_vs_table": diff[0],
            "mean_diff_vs_table_ci95": [diff[1], diff[2]],
            "win_rate": win[0],
            "win_rate_ci95": [win[1], win[2]],
            "points_by_round": {
                r: sum(v) / len(v)
                for r, v in sorted(by_round[n].items(), key=lambda kv: int(kv[0]))
            },
            "openskill": {"mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal()},
        }
        if closing["rounds"]:
            closes = wilson_ci95(closed_by[n], seat_rounds[n])
            report_agents[n]["close_rate"] = closes[0]  # share of its seat-rounds it closed
            report_agents[n]["close_rate_ci95"] = [closes[1], closes[2]]
    paired = {}
    for n in names[1:]:
        a, b = per_deal[candidate], per_deal[n]
        d = paired_diff_ci95(a["points"], b["points"])
        w = paired_diff_ci95(a["win"], b["win"])
        by = {}
        for label in sorted(round_deals[candidate], key=int):
            mine, theirs = round_deals[candidate][label], round_deals[n].get(label, {})
            both = [i for i in mine if i in theirs]
            if both:
                r = paired_diff_ci95([mine[i] for i in both], [theirs[i] for i in both])
                by[label] = {"mean_diff": r[0], "ci95": [r[1], r[2]], "deals": len(both)}
        paired[n] = {
            "mean_diff": d[0],
            "ci95": [d[1], d[2]],
            "sd_per_deal": sample_sd(
                [x - y for x, y in zip(a["points"], b["points"], strict=True)]
            ),
            "win_rate_diff": w[0],
            "win_rate_diff_ci95": [w[1], w[2]],
            "by_round": by,
        }
    return {
        "schema": SCHEMA,
        "config": {**config, "deals": deals, "games": deals * players},
        "candidate": candidate,
        "agents": report_agents,
        "paired": paired,
        "rounds": _rounds_summary(closing),
        "duplicate": {
            "rotations": players,
            "identical_round_deals": identical / round_pairs if round_pairs else 1.0,
        },
    }


def _rounds_summary(closing: dict[str, int]) -> dict[str, Any] | None:
    """Rounds played and the share that ran out without a closer (95% Wilson interval)."""
    if not closing["rounds"]:
        return None
    rate = wilson_ci95(closing["without_closer"], closing["rounds"])
    return {
        **closing,
        "without_closer_rate": rate[0],
        "without_closer_rate_ci95": [rate[1], rate[2]],
    }


def _rate(
    model: Any, ratings: dict[str, Any], seat_names: Sequence[str], scores: list[int]
) -> None:
    """One OpenSkill update: each seat a team, ranked by ``scores`` (lower is better)."""
    teams = [[model.rating(mu=ratings[n].mu, sigma=ratings[n].sigma)] for n in seat_names]
    new = model.rate(teams, ranks=list(scores))
    sums: dict[str, list[float]] = {}
    for n, team in zip(seat_names, new, strict=True):
        acc = sums.setdefault(n, [0.0, 0.0, 0.0])
        acc[0] += team[0].mu
        acc[1] += team[0].sigma
        acc[2] += 1
    for n, (mu, sigma, k) in sums.items():
        ratings[n] = model.rating(mu=mu / k, sigma=sigma / k, name=n)


# ----------------------------------------------------------------------------- output


def _describe(cfg: dict[str, Any]) -> str:
    """The game of a report's config, e.g. ``preset continental`` or ``game fifteen``."""
    game = cfg.get("game", "contract")
    if game == "contract":
        return f"preset {cfg['preset']}"
    options = ", ".join(f"{k}={v}" for k, v in cfg.get("options", {}).items())
    return f"game {game}" + (f" ({options})" if options else "")


def _unit(cfg: dict[str, Any]) -> tuple[str, str, str]:
    """(unit, its segment, "lower"/"higher" is better) of a report's config."""
    unit = cfg.get("unit", "points")
    segment = "round" if cfg.get("game", "contract") == "contract" else "hand"
    return unit, segment, "higher" if cfg.get("higher_is_better") else "lower"


def _label(name: str, version: str | None) -> str:
    """``strong (strong@v1)`` for a bare name, the name itself when it is its own version."""
    return name if not version or version == name else f"{name} ({version})"


def format_report(report: dict[str, Any]) -> str:
    """A plain-text table of the report."""
    cfg = report["config"]
    unit, segment, better = _unit(cfg)
    versions = cfg.get("versions", {})
    lineup_text = ", ".join(_label(n, versions.get(n)) for n in cfg["lineup"])
    lines = [
        f"{cfg['deals']} deals x {cfg['players']} rotations = {cfg['games']} games, "
        f"{_describe(cfg)}, seed {cfg['seed']}, line-up {lineup_text} "
        f"({unit}: {better} is better; intervals: t over deals)",
        f"{'agent':<24} {unit + '/game (95% CI)':>28} {unit + '/' + segment:>13} "
        f"{'diff vs table (95% CI)':>28} {'win rate (95% CI)':>24} {'OpenSkill':>10}",
    ]
    for name, a in report["agents"].items():
        lo, hi = a["mean_points_ci95"]
        dlo, dhi = a["mean_diff_vs_table_ci95"]
        wlo, whi = a["win_rate_ci95"]
        lines.append(
            f"{_label(name, a.get('version')):<24} {a['mean_points']:>9.1f} [{lo:>7.1f}, {hi:>7.1f}] "
            f"{a['mean_points_per_round']:>13.1f} "
            f"{a['mean_diff_vs_table']:>9.1f} [{dlo:>7.1f}, {dhi:>7.1f}] "
            f"{a['win_rate']:>8.3f} [{wlo:.3f}, {whi:.3f}] {a['openskill']['ordinal']:>10.2f}"
        )
    cand = _label(report["candidate"], versions.get(report["candidate"]))
    for name, p in report["paired"].items():
        lo, hi = p["ci95"]
        line = (
            f"paired {cand} - {_label(name, versions.get(name))}: {p['mean_diff']:.1f} "
            f"{unit}/game [{lo:.1f}, {hi:.1f}]"
        )
        if "sd_per_deal" in p:
            wlo, whi = p["win_rate_diff_ci95"]
            line += (
                f" (per-deal SD {p['sd_per_deal']:.1f}); win rate {p['win_rate_diff']:+.3f} "
                f"[{wlo:+.3f}, {whi:+.3f}]"
            )
        lines.append(line)
        if p.get("by_round"):
            parts = [
                f"{label}: {r['mean_diff']:+.1f} [{r['ci95'][0]:+.1f}, {r['ci95'][1]:+.1f}]"
                for label, r in p["by_round"].items()
            ]
            lines.append(f"  by {segment}: " + "; ".join(parts))
    seq = report.get("sequential")
    if seq:
        lines.append(
            f"sequential test ({seq['test']}): H0 gain {seq['delta0']:g} vs H1 gain "
            f"{seq['delta1']:g}, alpha {seq['alpha']:g}, beta {seq['beta']:g}: "
            f"{seq['decision']} after {seq['deals']} deals (LLR {seq['llr']:.2f}, bounds "
            f"{seq['bounds'][0]:.2f}, {seq['bounds'][1]:.2f})"
        )
    mixed = report.get("mixed")
    if mixed:
        a = mixed["agents"][report["candidate"]]
        dlo, dhi = a["mean_diff_vs_table_ci95"]
        wlo, whi = a["win_rate_ci95"]
        table = ", ".join(_label(n, mixed["versions"].get(n)) for n in mixed["lineup"])
        lines.append(
            f"mixed table ({table}; {mixed['deals']} deals): {cand} diff vs table "
            f"{a['mean_diff_vs_table']:.1f} [{dlo:.1f}, {dhi:.1f}], win rate "
            f"{a['win_rate']:.3f} [{wlo:.3f}, {whi:.3f}]"
        )
        for name, p in mixed["paired"].items():
            lo, hi = p["ci95"]
            lines.append(
                f"  mixed paired {cand} - {name}: {p['mean_diff']:.1f} [{lo:.1f}, {hi:.1f}]"
            )
    rounds = report.get("rounds")
    if rounds:
        closers = ", ".join(
            f"{name} {a['close_rate']:.3f}"
            for name, a in report["agents"].items()
            if "close_rate" in a
        )
        lo, hi = rounds["without_closer_rate_ci95"]
        lines.append(
            f"rounds: {rounds['rounds']}, without a closer {rounds['without_closer_rate']:.3f} "
            f"[{lo:.3f}, {hi:.3f}]; share of its seat-rounds each agent closed: {closers}"
        )
    t = report["timing"]
    lines.append(
        f"identical round deals across rotations: {report['duplicate']['identical_round_deals']:.3f}"
    )
    line = (
        f"{t['seconds']:.1f} s, {t['games_per_s']:.2f} games/s, "
        f"{t['decisions_per_s']:.0f} decisions/s"
    )
    if "cpu_seconds" in t:
        line += f"; {t['cpu_seconds']:.1f} CPU s for the games ({t['cpu_s_per_game']:.2f} per game)"
        if t.get("resumed_deals"):
            line += f", {t['resumed_deals']} deals resumed from the checkpoint"
    lines.append(line)
    return "\n".join(lines)


def display_name(name: str) -> str:
    """A short label for plots: ``ppo:dir/model.zip`` becomes ``ppo:model``."""
    if name.startswith("ppo:"):
        return "ppo:" + os.path.splitext(os.path.basename(name[4:]))[0]
    return name


def plot_report(report: dict[str, Any], path: str) -> None:
    """A PNG: points per game and win rate with 95% CIs, and mean points by round."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    agents = report["agents"]
    names = list(agents)
    labels_of = {n: display_name(n) for n in names}
    cfg = report["config"]
    unit, segment, better = _unit(cfg)
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8))
    fig.suptitle(
        f"{' vs '.join(labels_of.values())}: {cfg['deals']} duplicate deals x {cfg['players']} seats "
        f"({cfg['games']} games), {_describe(cfg)}, seed {cfg['seed']}",
        fontsize=12,
    )
    ypos = list(range(len(names)))
    for ax, key, title in (
        (axes[0], "mean_points", f"Mean {unit} per game ({better} is better)"),
        (axes[1], "win_rate", "Win rate"),
    ):
        values = [agents[n][key] for n in names]
        lows = [agents[n][key + "_ci95"][0] for n in names]
        highs = [agents[n][key + "_ci95"][1] for n in names]
        err = [  # clamped: a Wilson bound of a 100 % win rate can sit 1e-16 below it
            [max(0.0, v - lo) for v, lo in zip(values, lows, strict=True)],
            [max(0.0, hi - v) for v, hi in zip(values, highs, strict=True)],
        ]
        ax.barh(ypos, values, xerr=err, capsize=6, color=colors[: len(names)], alpha=0.85)
        ax.set_yticks(ypos, [labels_of[n] for n in names])
        ax.invert_yaxis()
        ax.set_title(title + " — 95% CI")
        for y, v, hi in zip(ypos, values, highs, strict=True):
            label = f"{v:.1f}" if key == "mean_points" else f"{v:.3f}"
            ax.text(hi, y, "  " + label, va="center", fontsize=10)
        ax.margins(x=0.25)
        ax.grid(axis="x", alpha=0.3)
    axes[1].axvline(1.0 / cfg["players"], color="grey", linestyle="--", label="1 / players")
    axes[1].legend(loc="lower right", fontsize=9)
    ax = axes[2]
    for i, n in enumerate(names):
        rounds = sorted(agents[n]["points_by_round"], key=int)
        ax.plot(
            [int(r) for r in rounds],
            [agents[n]["points_by_round"][r] for r in rounds],
            marker="o",
            color=colors[i % len(colors)],
            label=labels_of[n],
        )
    played = sorted({int(r) for n in names for r in agents[n]["points_by_round"]})
    if segment == "round":
        labels = []
        for r in played:
            t, k = contract_for_round(r)
            labels.append(
                f"{r}\n" + "+".join(x for x in (f"{t}T" * bool(t), f"{k}R" * bool(k)) if x)
            )
        ax.set_xticks(played, labels)
        ax.set_xlabel("round (contract: T trios, R runs)")
    else:
        ax.set_xlabel(f"{segment} of the game (games that reached it)")
    ax.set_ylabel(f"mean {unit} in the {segment}")
    ax.set_title(f"Mean {unit} by {segment}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ----------------------------------------------------------------------------- command line


def parse_sprt(text: str) -> SPRT:
    """``D0,D1`` or ``D0,D1,ALPHA,BETA`` for ``--sprt``; ValueError naming the text."""
    try:
        parts = [float(x) for x in text.split(",")]
    except ValueError:
        raise ValueError(f"--sprt {text!r}: expected numbers D0,D1[,ALPHA,BETA]") from None
    if len(parts) not in (2, 4):
        raise ValueError(f"--sprt {text!r}: expected D0,D1 or D0,D1,ALPHA,BETA")
    try:
        return SPRT(*parts)
    except ValueError as exc:
        raise ValueError(f"--sprt {text!r}: {exc}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = ArgumentParser(
        prog="continental evaluate",
        description="Evaluate bots on duplicate deals (the first agent is the candidate).",
    )
    parser.add_argument(
        "--agents", default="strong,greedy", help="comma-separated names or ppo:PATH"
    )
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument(
        "--games", type=int, default=100,
        help="number of deals; each is replayed with the candidate in every seat (x players games)",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--game", default=DEFAULT_GAME, choices=game_names(), help="which game (agents.games)"
    )
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE",
        help="a game option, e.g. --set target=100 (fifteen); repeatable",
    )  # fmt: skip
    parser.add_argument("--preset", default=None, help="contract game: the preset (continental)")
    parser.add_argument(
        "--rounds", default=None, help="contract game: rounds to play, e.g. '1' or '1,2,3'"
    )
    parser.add_argument("--json", default=None, help="write the report here")
    parser.add_argument("--plot", default=None, help="write a PNG plot here")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument(
        "--checkpoint", default=None,
        help="append every finished deal to this file (JSON lines), for --resume",
    )  # fmt: skip
    parser.add_argument(
        "--resume", action="store_true",
        help="continue from --checkpoint: deals already there are not played again",
    )  # fmt: skip
    parser.add_argument(
        "--sprt", default=None, metavar="D0,D1[,ALPHA,BETA]",
        help="screening: stop once a sequential test decides between a gain of D0 and of D1 "
        "points/game over the first opponent (e.g. 0,5); --games is then the most deals",
    )  # fmt: skip
    parser.add_argument(
        "--mixed", default=None, metavar="NAMES",
        help="also play the candidate at a table of these agents (e.g. search,ppo:PATH,strong)",
    )  # fmt: skip
    parser.add_argument(
        "--allow-oracle", action="store_true",
        help="allow diagnostic agents that read the hidden state (names with 'oracle')",
    )  # fmt: skip
    parser.add_argument(
        "--from-json", default=None, help="print and plot a saved report instead of playing"
    )
    args = parser.parse_args(argv)
    try:  # every output path is checked before the first game, so no report is lost at the end
        if args.json:
            check_output_path(args.json, "--json")
        if args.plot:
            check_plot_path(args.plot)
        if args.from_json:
            try:
                with open(args.from_json) as f:
                    saved = json.load(f)
            except (OSError, ValueError) as exc:
                raise ValueError(f"--from-json {args.from_json}: cannot be read ({exc})") from None
        else:
            agents = parse_names(args.agents, "--agents")
            rounds = parse_rounds(args.rounds)
            if args.jobs < 1:
                raise ValueError(f"--jobs {args.jobs}: must be at least 1")
            if args.game != "contract" and (args.preset or args.rounds):
                raise ValueError(
                    f"--preset and --rounds belong to the contract game, not {args.game}"
                )
            options = game_spec(args.game).parse_options(args.set)
            sprt = parse_sprt(args.sprt) if args.sprt else None
            mixed = parse_names(args.mixed, "--mixed") if args.mixed else None
            if args.resume and not args.checkpoint:
                raise ValueError("--resume needs --checkpoint PATH")
            if args.checkpoint:
                check_output_path(args.checkpoint, "--checkpoint")
            refuse_oracles(list(agents) + list(mixed or ()), args.allow_oracle)
    except ValueError as exc:
        parser.error(str(exc))
    if args.from_json:
        print(format_report(saved))
        if args.plot:
            plot_report(saved, args.plot)
        return 0
    try:
        report = evaluate(
            agents,
            players=args.players,
            games=args.games,
            seed=args.seed,
            jobs=args.jobs,
            preset=args.preset or "continental",
            rounds=rounds,
            progress=not args.no_progress,
            game=args.game,
            options=options,
            checkpoint=args.checkpoint,
            resume=args.resume,
            sprt=sprt,
            mixed=mixed,
            allow_oracle=args.allow_oracle,
        )
    except ValueError as exc:
        parser.error(str(exc))
    print(format_report(report))
    if args.json:
        write_json_atomic(args.json, report)
    if args.plot:
        plot_report(report, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
