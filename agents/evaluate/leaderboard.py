"""Rank every agent on the same duplicate deals: ``continental leaderboard``.

``python -m agents.evaluate.leaderboard`` is the same command::

    python -m agents.evaluate.leaderboard --agents random,greedy,strong,search,ppo:agents/models/ppo_continental_4p.zip \\
        --deals 10 --seed 0 --jobs 2 --json results/leaderboard.json --plot results/leaderboard.png \\
        --markdown results/leaderboard.md

**Tables (round robin of mixed tables).** With ``K`` agents and ``P`` seats, every deal is played
at every table of ``P`` distinct agents (every ``P``-subset of the agents, in the order given;
with fewer agents than seats the line-up repeats them cyclically, one table), and at each table
once per seat rotation, on the identical deck order. So each agent meets every other agent on the
same cards, and the luck of the deal cancels within a table. ``--deals N`` deals give
``N x tables x P`` games.

**Per agent.** The version it played (``strong`` -> ``strong@v1``, ``agents.versioned_name``);
mean points per game with a 95% Student-t interval over deals (an agent's games of one deal are
averaged first: they share the cards); win rate (the seat with the lowest total wins; ties split),
its per-deal shares with the same t interval over deals; an OpenSkill (Plackett-Luce)
rating updated game by game in deal, table and rotation order (an agent's several seats of one
game would get the mean update; at a round-robin table each agent has one seat). Agents are
ranked by mean points (lower is better). Each agent's row also compares it with the next one down:
the paired per-deal difference with its 95% t interval, and whether that interval excludes 0
(``separated``); where it does not, the table says the two are not separated at these deals.
Agents whose names contain ``oracle`` are refused unless ``--allow-oracle`` is given.

**Games.** ``--game contract`` (default), ``fifteen`` or ``knock`` (``agents.games``): the
agents are that game's bots (``make_agent(name, seed, game=...)``: ``random``, ``greedy``,
``strong``, ``ppo:PATH`` of a model trained for that game), and ``--set KEY=VALUE`` passes the
game's options as ``continental evaluate`` takes them (``--set hands=1``: one-hand fifteen-card
games; ``--set max_hands=1``: one-hand knock games); ``--preset`` is the contract game's. The
unit is the game's (``config.unit``): points, lower is better, in the contract game; chips,
higher is better, in the side games. The report keeps its key names for every game
(``mean_points`` is the mean final score in the game's unit), agents are ranked best first in
either direction, and ``vs_next`` is always the row minus the next one down (negative: ahead in
the contract game; positive: ahead in chips). An agent name the game does not have, a model of
another game or table size, or an option the game does not take is refused before any game::

    python -m agents.evaluate.leaderboard --game fifteen --set hands=1 \\
        --agents random,greedy,strong,ppo:agents/models/ppo_fifteen_4p.zip --deals 20 --seed 1

**Text agents.** ``llm:BASE_URL`` agents take the settings ``--llm-model`` ... as in
``continental evaluate`` (``config.llm``); each one's row gives ``text``: its replies, fallbacks
and ``illegal_reply_rate``, and the Markdown table a line under it (``docs/llm-agents.md``).

**Long runs.** ``--checkpoint PATH`` appends every finished deal (all its tables and rotations)
as one JSON line (``agents.evaluate.checkpoint``: flushed and fsynced; a line cut short is
dropped, a damaged one said and its deal played again, another run's file refused);
``--resume`` plays only the deals not there, and the report is the uninterrupted run's (the
ratings are fed deal by deal in deal order, resumed or played).

Results depend only on ``--seed`` (deal seeds and bot seeds are derived from it, the deal's index,
the table and the rotation), never on ``--jobs``: deals are played in worker processes but
collected in order.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack
from itertools import combinations, groupby, pairwise
from typing import Any

from agents.bots.ppo_agent import check_table
from agents.cli import (
    ArgumentParser,
    check_output_path,
    check_plot_path,
    parse_names,
    write_json_atomic,
)
from agents.evaluate.aggregate import add_text_stats, rate, text_row
from agents.evaluate.arguments import (
    add_checkpoint_arguments,
    add_game_arguments,
    add_llm_arguments,
    game_arguments,
    llm_arguments,
)
from agents.evaluate.checkpoint import CheckpointWriter, read_checkpoint, record_to
from agents.evaluate.deals import (
    build_agent,
    derive_seed,
    given_agents,
    label_agents,
    play_game,
    refuse_objects_in_spawned_workers,
    refuse_oracles,
    rotations,
)
from agents.evaluate.harness import (
    check_text_settings,
    game_options,
    refuse_overwrite,
    version_of,
)
from agents.evaluate.report import rules_key, text_lines
from agents.evaluate.stats import mean_ci95, paired_diff_ci95, rate_ci95, win_shares
from agents.games import DEFAULT_GAME, GameSpec, game_spec
from agents.text.llm import LLMOptions, llm_options

SCHEMA = "continental-leaderboard/1"
CHECKPOINT_SCHEMA = "continental-leaderboard-checkpoint/1"


def tables(agents: Sequence[str], players: int) -> list[list[str]]:
    """The line-ups of one deal: every ``players``-subset of the agents (cyclic if too few)."""
    if len(set(agents)) != len(agents):
        raise ValueError(f"--agents lists a name twice: {','.join(agents)}")
    if len(agents) < players:
        return [[agents[i % len(agents)] for i in range(players)]]
    return [list(t) for t in combinations(agents, players)]


# One game: (seed, deal, table, rotation, seat names, game, the game's options, players).
_Task = tuple[int, int, int, int, list[str], str, dict[str, Any], int]


def _game_tasks(
    seed: int,
    deals: Sequence[int],
    lineups: list[list[str]],
    game: str,
    options: dict[str, Any],
    players: int,
) -> list[_Task]:
    """One task per game: every table and rotation of each of ``deals``, in deal order."""
    return [
        (seed, index, t, r, list(names), game, options, players)
        for index in deals
        for t, lineup in enumerate(lineups)
        for r, names in enumerate(rotations(lineup))
    ]


def _play_one(task: _Task) -> dict[str, Any]:
    """One game of a deal (a worker's unit of work, so progress moves game by game)."""
    seed, index, t, r, names, game, options, players = task
    game_seed = derive_seed(seed, "deal", index)
    agent_seeds = [derive_seed(seed, index, t, r, s) for s in range(players)]
    result = play_game(names, game_seed, agent_seeds, game, options)
    out = {"deal": index, "names": list(names), "scores": list(result["scores"])}
    if "text" in result:  # a text agent's replies and fallbacks
        out["text"] = result["text"]
    return out


def _batched(tasks: list[_Task], spec: GameSpec, bar: Any) -> Iterable[dict[str, Any]]:
    """``_play_one`` of every task, played on the game's compiled batch (every seat a bot it
    decides): the same scores, many games per call (``agents.evaluate.batched``)."""
    from agents.evaluate.batched import play_games_batched

    seed, _index, _t, _r, _names, _game, options, players = tasks[0]
    games = [(derive_seed(seed, "deal", index), names) for _s, index, _t, _r, names, *_ in tasks]
    played = play_games_batched(spec, players, options, games, bar)
    for task, result in zip(tasks, played, strict=True):
        yield {"deal": task[1], "names": list(task[4]), "scores": list(result["scores"])}


def _run(
    tasks: list, jobs: int, progress: bool, batched: GameSpec | None = None
) -> Iterable[list[dict[str, Any]]]:
    """The games of each deal, deal by deal; the progress bar counts games. ``batched``: the
    game whose compiled batch plays them all (``can_batch_lineups`` said it can)."""
    from tqdm import tqdm

    bar = tqdm(total=len(tasks), desc="games", unit="game", disable=not progress, file=sys.stderr)
    try:
        if batched is not None:  # its own bar updates: one per game finished
            for _deal, group in groupby(_batched(tasks, batched, bar), key=lambda g: g["deal"]):
                yield list(group)
            return
        with ExitStack() as stack:
            games: Iterable[dict[str, Any]] = map(_play_one, tasks)
            if jobs > 1:
                ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
                pool = stack.enter_context(ctx.Pool(jobs))
                games = pool.imap(_play_one, tasks, chunksize=1)  # in task order: deal by deal
            for _deal, group in groupby(games, key=lambda g: g["deal"]):
                deal_games = []
                for game in group:
                    deal_games.append(game)
                    bar.update()
                yield deal_games
    finally:
        bar.close()


def leaderboard(
    agents: Sequence[str | Any],
    deals: int,
    players: int = 4,
    seed: int = 0,
    preset: str = "continental",
    jobs: int = 1,
    progress: bool = False,
    allow_oracle: bool = False,
    game: str = DEFAULT_GAME,
    options: dict[str, Any] | None = None,
    llm: LLMOptions | None = None,
    checkpoint: str | None = None,
    resume: bool = False,
) -> dict[str, Any]:
    """Play the round robin and return the report (see the module docstring).

    ``game``: a registered game (``agents.games``); ``options``: its options (the contract
    game's ``preset`` and ``rounds``, or e.g. ``{"hands": 1}`` for the fifteen-card game);
    ``preset`` is the contract game's default preset. ``agents``: names (registry names,
    installed entry points' names, ``package.module:Name``) or objects (a bot with
    ``act(view)``, or a class or factory building one from a seed), labelled by their ``name``
    attribute or class name (``agents.evaluate.deals.label_agents``). ``llm``: the settings
    of the text agents ``llm:BASE_URL`` (``agents.text.llm.LLMOptions``). ``checkpoint``: a
    JSON-lines file that receives every deal (all its tables) as it ends; with ``resume`` the
    deals already there are not played again, and the report is the uninterrupted run's."""
    spec = game_spec(game)
    if resume and not checkpoint:
        raise ValueError("--resume needs --checkpoint PATH")
    labels, given = label_agents(list(agents), spec.name)
    refuse_objects_in_spawned_workers(given, jobs)
    check_text_settings(labels, llm, jobs)
    with given_agents(given), llm_options(llm):
        report = _leaderboard(
            labels, deals, players, seed, preset, jobs, progress, allow_oracle, spec, options,
            (checkpoint, resume, llm.to_dict() if llm is not None else None),
        )  # fmt: skip
    if llm is not None:  # which model played is part of the result
        report["config"]["llm"] = llm.to_dict()
    return report


def _leaderboard(
    agents: list[str],
    deals: int,
    players: int,
    seed: int,
    preset: str,
    jobs: int,
    progress: bool,
    allow_oracle: bool,
    spec: GameSpec,
    options: dict[str, Any] | None,
    record: tuple[str | None, bool, dict[str, Any] | None] = (None, False, None),
) -> dict[str, Any]:
    """``leaderboard`` once every agent has its label; ``record``: (checkpoint, resume, the
    text agents' settings)."""
    from openskill.models import PlackettLuce

    options, rules = _check_request(
        spec, agents, deals, players, preset, options, jobs, allow_oracle
    )
    lineups = tables(list(agents), players)
    game_config = {
        "agents": list(agents), "players": players, "tables": lineups, "seed": seed,
        "game": spec.name,
        **({"preset": rules.name, "rounds": list(rules.rounds)} if rules is not None
           else {"options": options}),
    }  # fmt: skip
    checkpoint, resume, llm = record
    if checkpoint and not resume:
        refuse_overwrite([checkpoint])
    header = {"schema": CHECKPOINT_SCHEMA, **game_config, **({"llm": llm} if llm else {})}
    done = _resumed_deals(checkpoint, header, deals, resume, len(lineups) * players)
    todo = [d for d in range(deals) if d not in done]
    tasks = _game_tasks(seed, todo, lineups, spec.name, options, players)
    sign = spec.sign()  # +1: higher scores are better
    tally = _Tally(agents, PlackettLuce(), sign, spec)
    cpu = time.process_time()
    start = time.perf_counter()
    from agents.evaluate.batched import can_batch_lineups

    batched = spec if can_batch_lineups(lineups, spec, players, options) else None
    record = record_to(checkpoint, header, resume)
    played = _run(tasks, jobs, progress, batched) if tasks else iter(())
    try:
        _tally_deals(tally, deals, done, played, record)
    finally:
        if hasattr(played, "close"):
            played.close()  # stops the workers and the progress bar, also after an error
    seconds = time.perf_counter() - start
    rows = {n: tally.row(n) for n in agents}
    ranking = sorted(agents, key=lambda n: (-sign * rows[n]["mean_points"], n))
    for upper, lower in pairwise(ranking):
        d, lo, hi = paired_diff_ci95(tally.per_deal[upper], tally.per_deal[lower])
        rows[upper]["vs_next"] = {
            "agent": lower, "mean_diff": d, "ci95": [lo, hi], "separated": hi < 0 or lo > 0,
        }  # fmt: skip
    return {
        "schema": SCHEMA,
        "config": {
            **game_config,
            "deals": deals,
            "games": deals * len(lineups) * players,
            "unit": spec.unit,
            "higher_is_better": spec.higher_is_better,
            "jobs": jobs,
            "resumed_deals": len(done),
        },
        "ranking": ranking,
        "agents": rows,
        "head_to_head": tally.head_to_head(),
        # CPU of this process only: with --jobs > 1 the games' CPU is the workers'.
        "timing": {"seconds": seconds, "cpu_seconds_main": time.process_time() - cpu},
    }


def _check_request(
    spec: GameSpec,
    agents: Sequence[str],
    deals: int,
    players: int,
    preset: str,
    options: dict[str, Any] | None,
    jobs: int,
    allow_oracle: bool,
) -> tuple[dict[str, Any], Any]:
    """The options the game is created with and the contract game's rules (None for another
    game); ValueError naming the problem, before any game."""
    refuse_oracles(agents, allow_oracle, spec.name)

    if deals < 2:
        raise ValueError(f"--deals {deals}: need at least 2 deals for an interval")
    presets = spec.player_ranges() if spec.rules_options and spec.player_ranges else None
    if presets is not None and preset not in presets:  # a game whose options are rules
        raise ValueError(f"--preset {preset!r}: choose one of {', '.join(sorted(presets))}")
    if jobs < 1:
        raise ValueError(f"--jobs {jobs}: must be at least 1")
    unknown = sorted(set(options or {}) - set(spec.option_types))
    if unknown:
        known = ", ".join(spec.option_types) or "none"
        raise ValueError(f"options {unknown} are not the {spec.name} game's; known: {known}")
    options, rules = game_options(spec, dict(options or {}), preset, None)
    try:
        spec.check_options(players, options)
    except ValueError as exc:
        raise ValueError(f"--players {players}: {exc}") from None
    for name in agents:
        check_table(build_agent(name, 0, spec), players)  # a model of another table size
    if len(agents) < 2:
        raise ValueError(
            f"--agents {','.join(agents)}: a leaderboard ranks agents against each other; "
            "name at least two"
        )
    return options, rules


def _not_a_deal(games_per_deal: int) -> Any:
    """Why a checkpoint line is not one of this round robin's deals (None if it is one)."""

    def why(entry: Any, players: int) -> str | None:
        if not isinstance(entry, dict):
            return "not a JSON object"
        deal, games = entry.get("deal"), entry.get("games")
        if not isinstance(deal, int) or isinstance(deal, bool) or deal < 0:
            return f"its 'deal' is {deal!r}, not a deal number"
        if not isinstance(games, list) or len(games) != games_per_deal:
            found = len(games) if isinstance(games, list) else repr(games)
            return (
                f"deal {deal} has {found} games, not one per table and rotation ({games_per_deal})"
            )
        for k, game in enumerate(games):
            if not (
                isinstance(game, dict)
                and isinstance(game.get("names"), list)
                and isinstance(game.get("scores"), list)
                and len(game["names"]) == len(game["scores"]) == players
            ):
                return (
                    f"deal {deal}'s game {k} lacks a name and a score for each of {players} seats"
                )
        return None

    return why


def _tally_deals(
    tally: _Tally,
    deals: int,
    done: dict[int, dict[str, Any]],
    played: Iterator[list[dict[str, Any]]],
    record: tuple[str, dict[str, Any], bool] | None,
) -> None:
    """Feed every deal to ``tally`` in deal order (the ratings' order): a resumed deal from
    ``done``, the others from ``played`` (the deals not in ``done``, in order), each appended
    to the checkpoint before it counts (``record``: its path, header and whether the file
    starts afresh; opened at the first deal played, so a run that fails before leaves the file
    as it was)."""
    writer: CheckpointWriter | None = None
    try:
        for d in range(deals):
            if d in done:
                tally.add_deal(done[d]["games"])
                continue
            games = next(played)
            if record is not None:
                writer = writer or CheckpointWriter(*record)
                writer.write({"deal": d, "games": games})
            tally.add_deal(games)
    finally:
        if writer is not None:
            writer.close()


def _resumed_deals(
    checkpoint: str | None, header: dict[str, Any], deals: int, resume: bool, per_deal: int
) -> dict[int, dict[str, Any]]:
    """The deals below ``deals`` that the checkpoint already holds (none without ``resume``);
    a damaged line is said on stderr and only its deals are played again."""
    if not (resume and checkpoint and os.path.exists(checkpoint)):
        return {}
    resumed = read_checkpoint(checkpoint, header, _not_a_deal(per_deal))
    for note in resumed.notes:
        print(note, file=sys.stderr)
    return {d: entry for d, entry in resumed.deals.items() if d < deals}


class _Tally:
    """Each agent's per-deal means, seat-games and rating, fed deal by deal in deal order;
    ``sign`` +1 when higher scores are better."""

    def __init__(
        self, agents: Sequence[str], model: Any, sign: int = -1, game: str | GameSpec = DEFAULT_GAME
    ) -> None:
        self.agents, self.model, self.sign = agents, model, sign
        self.spec = game_spec(game) if isinstance(game, str) else game
        self.ratings = {n: model.rating(name=n) for n in agents}
        self.per_deal: dict[str, list[float]] = {n: [] for n in agents}
        self.win_deal: dict[str, list[float]] = {n: [] for n in agents}
        self.seat_games = dict.fromkeys(agents, 0)
        self.text: dict[str, dict[str, int]] = {}  # text agents' replies and fallbacks
        # (a, b), a before b in ``agents``: per deal, the mean of a's minus b's score over the
        # games where both sat at the table.
        self.pair_deal: dict[tuple[str, str], list[float]] = {
            (a, b): [] for i, a in enumerate(agents) for b in agents[i + 1 :]
        }

    def add_deal(self, games: list[dict[str, Any]]) -> None:
        """Every game of one deal (every table and rotation), in play order."""
        points: dict[str, list[int]] = {n: [] for n in self.agents}
        won: dict[str, list[float]] = {n: [] for n in self.agents}
        for g in games:
            names, scores = g["names"], g["scores"]
            ranks = [-self.sign * s for s in scores]  # the best total ranks first
            for n, s, w in zip(names, scores, win_shares(ranks), strict=True):
                points[n].append(s)
                won[n].append(w)
                self.seat_games[n] += 1
            rate(self.model, self.ratings, names, ranks)
            add_text_stats(self.text, g.get("text"), names)
        for n in self.agents:
            self.per_deal[n].append(sum(points[n]) / len(points[n]))
            self.win_deal[n].append(sum(won[n]) / len(won[n]))
        for (a, b), series in self.pair_deal.items():
            diffs = [
                _seat_mean(g, a) - _seat_mean(g, b)
                for g in games
                if a in g["names"] and b in g["names"]
            ]
            if diffs:
                series.append(sum(diffs) / len(diffs))

    def head_to_head(self) -> dict[str, dict[str, Any]]:
        """``report["head_to_head"][a][b]``: a's score minus b's at the tables where both sat,
        the paired per-deal mean with its 95% t interval, and whether a is behind (the interval
        above 0 in the contract game, below 0 where higher is better)."""
        out: dict[str, dict[str, Any]] = {n: {} for n in self.agents}
        for (a, b), series in self.pair_deal.items():
            if len(series) < 2:
                continue
            m, lo, hi = mean_ci95(series)
            for x, y, sign in ((a, b, 1), (b, a, -1)):
                low, high = sorted((sign * lo, sign * hi))
                behind = low > 0 if self.sign < 0 else high < 0
                out[x][y] = {"mean_diff": sign * m, "ci95": [low, high], "behind": behind,
                             "deals": len(series)}  # fmt: skip
        return out

    def row(self, n: str) -> dict[str, Any]:
        """Agent ``n``'s entry of ``report["agents"]`` (without its comparison to the next)."""
        m, lo, hi = mean_ci95(self.per_deal[n])
        share, wlo, whi = rate_ci95(self.win_deal[n])
        r = self.ratings[n]
        text = {"text": text_row(self.text[n])} if n in self.text else {}
        return {
            # Frozen versions (strong@v1 ...) are the contract game's (``GameSpec.version_of``);
            # a side game's names are their own versions.
            "version": version_of(self.spec, n),
            "games": self.seat_games[n],
            "mean_points": m,
            "mean_points_ci95": [lo, hi],
            "win_rate": share,
            "win_rate_ci95": [wlo, whi],
            "openskill": {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()},
            **text,
        }


def _seat_mean(game: dict[str, Any], name: str) -> float:
    """``name``'s mean score over its seats of one game (a line-up may repeat an agent)."""
    scores = [s for n, s in zip(game["names"], game["scores"], strict=True) if n == name]
    return sum(scores) / len(scores)


def describe_game(cfg: dict[str, Any]) -> str:
    """The game a report played, in words: its rules where its options are rules (``preset
    `continental``` for the contract game, ``GameSpec.rules_key``), else its name and options
    (``game `fifteen`, hands=1``). Reports written before ``--game`` are the contract game's."""
    key = rules_key(cfg)
    if key:
        return f"{key} `{cfg[key]}`"
    options = ", ".join(f"{k}={v}" for k, v in sorted(cfg.get("options", {}).items()))
    return f"game `{cfg['game']}`" + (f", {options}" if options else "")


def _unit(cfg: dict[str, Any]) -> tuple[str, str]:
    """The report's unit and its direction: ("points", "lower is better") or ("chips", ...)."""
    unit = cfg.get("unit", "points")
    return unit, "higher is better" if cfg.get("higher_is_better") else "lower is better"


def markdown(report: dict[str, Any]) -> str:
    """The leaderboard as a Markdown table (best first)."""
    cfg = report["config"]
    unit, direction = _unit(cfg)
    lines = [
        f"{cfg['deals']} deals x {len(cfg['tables'])} tables x {cfg['players']} rotations, "
        f"{describe_game(cfg)}, seed {cfg['seed']}; {unit} per game, {direction}",
        "",
        f"| rank | agent | version | games | mean {unit} [95% CI] | win rate [95% CI over deals] "
        "| OpenSkill ordinal | minus the next [95% CI], separated? |",
        "|---:|---|---|---:|---|---|---:|---|",
    ]
    for i, n in enumerate(report["ranking"], 1):
        a = report["agents"][n]
        lo, hi = a["mean_points_ci95"]
        wlo, whi = a["win_rate_ci95"]
        nxt = a.get("vs_next")
        sep = ""
        if nxt:
            nlo, nhi = nxt["ci95"]
            sep = f"{nxt['mean_diff']:.1f} [{nlo:.1f}, {nhi:.1f}], " + (
                "yes" if nxt["separated"] else "**not separated**"
            )
        lines.append(
            f"| {i} | `{n}` | `{a.get('version', n)}` | {a['games']} | "
            f"{a['mean_points']:.1f} [{lo:.1f}, {hi:.1f}] | "
            f"{a['win_rate']:.3f} [{wlo:.3f}, {whi:.3f}] | {a['openskill']['ordinal']:.2f} | {sep} |"
        )
    lines += head_to_head_lines(report)
    text = text_lines(report["agents"], cfg.get("llm"))
    if text:
        lines += ["", *text]
    return "\n".join(lines) + "\n"


def head_to_head_lines(report: dict[str, Any]) -> list[str]:
    """The head-to-head table: row minus column at the tables where both sat (none in reports
    written before it, or with a single table)."""
    pairs = report.get("head_to_head") or {}
    names = [n for n in report["ranking"] if pairs.get(n)]
    if not names:
        return []
    unit, _ = _unit(report["config"])
    lines = [
        "",
        f"Head to head: the row's {unit} minus the column's at the tables where both sat, per "
        "deal, [95% CI]; **bold**: the row is behind.",
        "",
        "| | " + " | ".join(f"`{n.split('/')[-1]}`" for n in names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for a in names:
        cells = []
        for b in names:
            h = pairs[a].get(b)
            if h is None:
                cells.append("")
                continue
            cell = f"{h['mean_diff']:+.1f} [{h['ci95'][0]:+.1f}, {h['ci95'][1]:+.1f}]"
            cells.append(f"**{cell}**" if h["behind"] else cell)
        lines.append(f"| `{a.split('/')[-1]}` | " + " | ".join(cells) + " |")
    return lines


def plot(report: dict[str, Any], path: str) -> None:
    """Mean points and win rate per agent, with their intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = report["ranking"]
    rows = [report["agents"][n] for n in names]
    cfg = report["config"]
    unit, direction = _unit(cfg)
    fig, axes = plt.subplots(1, 2, figsize=(10, 0.6 * len(names) + 2))
    for ax, key, label in (
        (axes[0], "mean_points", f"Mean {unit} per game ({direction})"),
        (axes[1], "win_rate", "Win rate"),
    ):
        vals = [r[key] for r in rows]
        lo = [max(0.0, r[key] - r[f"{key}_ci95"][0]) for r in rows]
        hi = [max(0.0, r[f"{key}_ci95"][1] - r[key]) for r in rows]
        ax.barh(range(len(names)), vals, xerr=[lo, hi], color="tab:blue", alpha=0.8, capsize=4)
        ax.set_yticks(range(len(names)), [n.split("/")[-1] for n in names])
        ax.invert_yaxis()
        ax.set_title(label)
    fig.suptitle(
        f"Leaderboard: {cfg['deals']} duplicate deals, {len(cfg['tables'])} tables, "
        f"{cfg['players']} players, {describe_game(cfg).replace('`', '')} (95% intervals)"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point."""
    parser = ArgumentParser(prog="continental leaderboard", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--agents", default=None,
        help="comma-separated agent names (registry names, ppo:PATH, installed bots' names, "
        "package.module:Name of a bot of your own, llm:BASE_URL of a chat endpoint)",
    )  # fmt: skip
    parser.add_argument(
        "--reports", nargs="+", default=None, metavar="REPORT",
        help="rank instead the candidates of these `continental evaluate` reports, each against "
        "the same reference (agents.evaluate.anchored); plays no game",
    )  # fmt: skip
    parser.add_argument(
        "--assume-version", action="append", default=[], metavar="NAME=VERSION",
        help="with --reports: the version a name played in a report written before reports "
        "named versions (strong=strong@v1); repeatable",
    )  # fmt: skip
    parser.add_argument("--deals", type=int, default=10, help="duplicate deals")
    parser.add_argument("--players", type=int, default=4, help="players at each table")
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the deals (fix it before a decisive run; never reuse it for another)",
    )
    add_game_arguments(parser)
    add_llm_arguments(parser)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--json", default=None, help="write the report here")
    parser.add_argument("--plot", default=None, help="write a PNG plot here")
    parser.add_argument("--markdown", default=None, help="write the Markdown table here")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    add_checkpoint_arguments(parser, "deal (all its tables)")
    parser.add_argument(
        "--allow-oracle", action="store_true",
        help="allow diagnostic agents that read the hidden state (names with 'oracle')",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if (args.agents is None) == (args.reports is None):
        parser.error("give either --agents (play a round robin) or --reports (rank reports)")
    if args.reports is not None:
        return _main_reports(parser, args)
    try:
        names = parse_names(args.agents, "--agents")
        game, options = game_arguments(args)
        tables(names, args.players)
        if args.resume and not args.checkpoint:
            raise ValueError("--resume needs --checkpoint PATH")
        for flag, path in (
            ("--json", args.json), ("--markdown", args.markdown), ("--checkpoint", args.checkpoint)
        ):  # fmt: skip
            if path:
                check_output_path(path, flag)
        if args.plot:
            check_plot_path(args.plot)
        llm = llm_arguments(args)
        report = leaderboard(
            names,
            args.deals,
            args.players,
            args.seed,
            args.preset or "continental",
            args.jobs,
            progress=not args.no_progress,
            allow_oracle=args.allow_oracle,
            game=game,
            options=options,
            llm=llm,
            checkpoint=args.checkpoint,
            resume=args.resume,
        )
    except (ValueError, FileNotFoundError) as exc:
        parser.error(str(exc))
    table = markdown(report)
    print(table, end="")
    if args.json:
        write_json_atomic(args.json, report)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(table)
    if args.plot:
        plot(report, args.plot)
    return 0


def _main_reports(parser: ArgumentParser, args: Any) -> int:
    """``--reports``: the anchored leaderboard of evaluation reports."""
    from agents.evaluate import anchored

    assume: dict[str, str] = {}
    for flag in ("deals", "players", "seed", "jobs", "game", "set", "preset", "rounds",
                 "llm_model", "checkpoint", "resume"):  # fmt: skip
        if getattr(args, flag, None) != parser.get_default(flag):
            parser.error(
                f"--{flag.replace('_', '-')} plays games; --reports ranks reports and plays none"
            )
    try:
        for item in args.assume_version:
            name, sep, version = item.partition("=")
            if not sep or not name or not version or "=" in version:
                raise ValueError(f"--assume-version {item!r}: expected NAME=VERSION")
            assume[name] = version
        for flag, path in (("--json", args.json), ("--markdown", args.markdown)):
            if path:
                check_output_path(path, flag)
        if args.plot:
            check_plot_path(args.plot)
        board = anchored.anchored_leaderboard(args.reports, assume)
    except ValueError as exc:
        parser.error(str(exc))
    table = anchored.markdown(board)
    print(table, end="")
    if args.json:
        write_json_atomic(args.json, board)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(table)
    if args.plot:
        anchored.plot(board, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
