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
cut short by an interruption, refuses a file written by another evaluation or a line that is JSON
but not a deal, and plays only the deals still missing: the final report equals an uninterrupted
run's (timing aside). A damaged line in the middle is said on stderr (the file, the line, why) and
skipped: the intact deals after it are kept and only the deal it held is played again. ``--sprt
D0,D1`` screens quickly: a sequential probability ratio test on the per-deal gain of the
candidate over the first opponent (``agents.evaluate.stats.SPRT``) stops the run as soon as it decides
between a gain of D0 and of D1 (``report["sequential"]``); a screening result, not a decisive
measurement. ``--mixed NAMES`` also plays the candidate at a table of those agents on the same
seed (``report["mixed"]``), e.g. ``--mixed search,ppo:agents/models/ppo_continental_4p.zip,strong``.

**Text agents.** ``llm:BASE_URL`` asks an OpenAI-compatible chat endpoint for each move
(``agents.text``, ``docs/llm-agents.md``) with the settings ``--llm-model NAME``,
``--llm-fallback BOT``, ``--llm-timeout S`` and ``--llm-retries N`` (``llm=LLMOptions(...)``),
recorded in ``config.llm``. Each text agent's row gives its replies, the fallbacks (replies that
named no legal action, or requests that failed after their retries, played by the fallback bot)
and ``illegal_reply_rate`` = fallbacks / replies, summed over every game, deal and worker.

**Variance reduction.** ``--variance aivat`` (``variance="aivat"``) also reports each paired
difference with control variates at the game's chance events, AIVAT-style
(``agents.evaluate.variance``): each game is played with the game's chance recorder, each seat's
score less its correction (a frozen value's change at each stock draw minus its expectation:
mean zero by construction) is averaged per deal, and ``report["variance"]`` gives the reduced
difference, its interval, the plain interval and the ratio of their widths. The plain figure
decides (``variance.decides``). The corrections are stored in every game's entry (``aivat``), so a
checkpoint keeps them; resuming with ``--variance`` a checkpoint whose deals lack them is refused.
Games without a chance model (``GameSpec.chance_recorder``) and oracle diagnostics are refused.

**JSON schema** (``--json PATH``; ``schema`` = ``"continental-eval/1"``)::

    {
      "schema": "continental-eval/1",
      "config": {"agents": [...], "lineup": [...], "versions": {name: version}, "players": P, "deals": N, "games": N*P,
                 "seed": S, "game": "contract", "unit": "points", "higher_is_better": false,
                 "options": {...}, "preset": "...", "rounds": [...], "jobs": J,
                 "llm": {"model": M, "fallback": "greedy", "timeout": t, "retries": r,
                         "backoff": b},
                 "variance": "aivat"},
                 # preset and rounds: the contract game only; llm: with a text agent only;
                 # variance: with --variance only
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
          "close_rate": x, "close_rate_ci95": [lo, hi],  # contract game: rounds it closed
          "text": {"replies": n, "fallbacks": k, "failed_requests": f,
                   "illegal_reply_rate": k / n}   # text agents (llm:BASE_URL) only
        }, ...
      },
      "paired": {"<opponent>": {"mean_diff": x, "ci95": [lo, hi], "sd_per_deal": x,
                                "win_rate_diff": x, "win_rate_diff_ci95": [lo, hi],
                                "by_round": {"1": {"mean_diff": x, "ci95": [lo, hi], "deals": n}}}},
                    # candidate - opponent
      "sequential": {...},   # with --sprt only
      "variance": {"estimator": "aivat", "models": ["aivat_value_v1:<digest>"], "chance_events": n,
                   "decides": "plain",
                   "paired": {"<opponent>": {"mean_diff": x, "ci95": [lo, hi], "sd_per_deal": x,
                                             "plain_mean_diff": x, "plain_ci95": [lo, hi],
                                             "width_ratio": x, "mean_correction": x,
                                             "mean_correction_ci95": [lo, hi],
                                             "correction_sd_per_deal": x}}},
                    # with --variance only: reduced = plain - mean_correction, deal by deal
      "mixed": {"lineup": [...], "versions": {...}, "deals": N, "agents": {...}, "paired": {...},
                "variance": {...}},   # variance: with --variance only
      "rounds": {"rounds": R, "without_closer": K, "without_closer_rate": x,
                 "without_closer_rate_ci95": [lo, hi]},   # contract game only (else null)
      "duplicate": {"rotations": P, "identical_round_deals": f},
      "timing": {"seconds": s, "games_per_s": g, "decisions_per_s": d, "cpu_seconds": c,
                 "cpu_s_per_game": x, "decisions": n, "resumed_deals": k}
    }

With one deal there is no interval: every ``*_ci95`` taken over deals and every
``sd_per_deal`` is null (the text report prints ``n/a (1 deal)``). Paired win-rate intervals are
clipped to the possible range of a difference of win shares, [-1, 1].

Points are a game's total (lower is better in the contract game; chips, higher is better, in the
fifteen-card game); ``mean_diff_vs_table`` is own score minus the mean of the other seats in the
same game. ``timing`` is the only part that varies between runs.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from agents.bots.ppo_agent import check_table
from agents.cli import write_json_atomic
from agents.evaluate.aggregate import SCHEMA, aggregate, deal_points, rate, rounds_summary, timing
from agents.evaluate.arguments import (
    build_parser,
    check_outputs,
    evaluate_arguments,
    parse_sprt,
    read_saved,
)
from agents.evaluate.batched import can_batch, run_deals_batched
from agents.evaluate.checkpoint import (
    CHECKPOINT_SCHEMA,
    CheckpointWriter,
    checkpoint_header,
    holds_deals,
    load_checkpoint,
    read_checkpoint,
    record_to,
)
from agents.evaluate.deals import (
    build_agent,
    derive_seed,
    given_agents,
    label_agents,
    lineup,
    play_deal,
    play_game,
    play_seating,
    refuse_objects_in_spawned_workers,
    refuse_oracles,
    rotations,
    run_deals,
)
from agents.evaluate.report import (
    describe,
    display_name,
    format_report,
    label,
    plot_report,
    unit_of,
)
from agents.evaluate.stats import SPRT
from agents.evaluate.variance import (
    RUNS,
    check_estimator,
    check_resumed,
    model_label,
    variance_report,
)
from agents.games import DEFAULT_GAME, GameSpec, game_spec
from agents.text.llm import LLMOptions, is_text_agent, llm_options
from continental_env.rules import RuleConfig, resolve_rules

# The names this module had before its parts moved out (scripts and tests import some of them).
_run_deals = run_deals
_checkpoint_header = checkpoint_header
_Checkpoint = CheckpointWriter
_deal_points = deal_points
_timing = timing
_aggregate = aggregate
_rounds_summary = rounds_summary
_rate = rate
_describe = describe
_unit = unit_of
_label = label

__all__ = [
    "CHECKPOINT_SCHEMA",
    "SCHEMA",
    "derive_seed",
    "display_name",
    "evaluate",
    "format_report",
    "game_options",
    "lineup",
    "load_checkpoint",
    "main",
    "parse_sprt",
    "play_deal",
    "play_game",
    "play_seating",
    "plot_report",
    "refuse_oracles",
    "resolve_rules",
    "rotations",
]


# ----------------------------------------------------------------------------- the evaluation


def evaluate(
    agents: Sequence[str | Any],
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
    mixed: Sequence[str | Any] | None = None,
    allow_oracle: bool = False,
    llm: LLMOptions | None = None,
    variance: str | None = None,
) -> dict[str, Any]:
    """Play ``games`` duplicate deals and return the report (its JSON schema is in the
    docstring of ``agents.evaluate.harness``).

    ``agents``: the candidate first, then its opponents; each a name (a registry name such as
    ``greedy``, ``ppo:PATH``, an installed entry point's name, or ``package.module:Name`` of a
    bot of your own) or an object: a bot with ``act(view)`` (used as is, in all its seats), or a
    class or factory building one from a seed. Reports label an object by its ``name``
    attribute, else its class name (``docs/own-bot.md``).

    ``preset`` and ``rounds`` are the contract game's; ``options`` are any game's
    (``agents.games``), e.g. ``{"target": 100}`` for the fifteen-card game. ``checkpoint``: a
    file that receives every deal as it ends; with ``resume`` the deals already there are not
    played again (the final report is the one an uninterrupted run gives, timing aside).
    ``sprt``: stop early once the sequential test decides (``games`` is then the most deals).
    ``mixed``: the candidate is also played at a table of these agents (``report["mixed"]``).
    Agents whose names contain ``oracle`` read the hidden state: refused unless ``allow_oracle``.
    ``llm``: the settings of the text agents ``llm:BASE_URL`` (``agents.text.llm.LLMOptions``).
    ``variance``: ``"aivat"`` also reports the paired differences with control variates at chance
    events (``report["variance"]``, ``agents.evaluate.variance``); the plain figures decide.
    """
    spec = game_spec(game)
    labels, given = label_agents([*agents, *(mixed or ())], spec.name)
    refuse_objects_in_spawned_workers(given, jobs)
    check_text_settings(labels, llm, jobs)
    with given_agents(given), llm_options(llm):
        return _evaluate(
            labels[: len(agents)], players, games, seed, jobs, preset, rounds, progress, spec,
            options, checkpoint, resume, sprt, labels[len(agents) :] if mixed else None,
            allow_oracle, llm, variance,
        )  # fmt: skip


def _evaluate(
    agents: list[str],
    players: int,
    games: int,
    seed: int,
    jobs: int,
    preset: str | RuleConfig,
    rounds: Sequence[int] | None,
    progress: bool,
    spec: GameSpec,
    options: dict[str, Any] | None,
    checkpoint: str | None,
    resume: bool,
    sprt: SPRT | None,
    mixed: list[str] | None,
    allow_oracle: bool,
    llm: LLMOptions | None,
    variance: str | None = None,
) -> dict[str, Any]:
    """``evaluate`` once every agent has its label (``label_agents``)."""
    from openskill.models import PlackettLuce

    refuse_oracles(list(agents) + list(mixed or ()), allow_oracle, spec.name)
    check_estimator(variance, spec, list(agents) + list(mixed or ()))
    game = spec.name
    options, rules = game_options(spec, dict(options or {}), preset, rounds)
    spec.check_options(players, options)
    base = _check_request(spec, agents, players, games, resume, checkpoint, mixed)
    seatings = rotations(base)
    names = list(dict.fromkeys(base))
    candidate = base[0]
    config = _config(spec, agents, base, names, players, games, seed, options, rules, jobs)
    if any(is_text_agent(n) for n in names):  # which model played is part of the result
        config["llm"] = llm.to_dict() if llm is not None else None
    # Not in the checkpoint's header: the estimator changes no game.
    config.update({"variance": variance} if variance is not None else {})
    header = checkpoint_header(config)
    done = _resumed(checkpoint, header, games, resume, variance, spec, options)
    sign = spec.sign()  # +1: higher scores are better
    opponent = names[1] if len(names) > 1 else None
    test = sprt.start() if sprt is not None else None
    decided = _decider(test, seatings, names, candidate, opponent, sign)

    start = time.perf_counter()
    deal = (seed, seatings, spec.name, options)
    record = record_to(checkpoint, header, resume)
    run = RUNS[variance]  # None: the plain ``_run_deals``
    results, played = _play(done, games, deal, jobs, progress, decided, record, run)
    seconds = time.perf_counter() - start
    report = aggregate(results, config, seatings, names, candidate, sign, PlackettLuce())
    report["timing"] = timing(results, seconds, len(results) - len(played), played)
    if test is not None:
        report["sequential"] = test.summary(candidate, opponent)
    report.update(variance_report(results, seatings, names, candidate, report, variance))
    if mixed:
        lineup = [candidate, *mixed]
        sub = evaluate(
            lineup, players, games, seed, jobs, preset, rounds, progress, game,
            None if rules is not None else options,
            checkpoint=checkpoint + ".mixed" if checkpoint else None, resume=resume,
            allow_oracle=allow_oracle, llm=_llm_for(lineup, llm), variance=variance,
        )  # fmt: skip
        report["mixed"] = _mixed_summary(sub)
    return report


def _llm_for(names: Sequence[str], llm: LLMOptions | None) -> LLMOptions | None:
    """The text-agent settings, for a line-up that has a text agent (else None)."""
    return llm if any(is_text_agent(n) for n in names) else None


def check_text_settings(names: Sequence[str], llm: LLMOptions | None, jobs: int) -> None:
    """ValueError, before any game, for text-agent settings without a text agent, or text
    agents whose settings cannot reach spawned worker processes (no fork on this system); a
    text agent without settings is refused when it is built (``make_llm_agent``)."""
    text = [n for n in names if is_text_agent(n)]
    if llm is not None and not text:
        raise ValueError(
            "--llm-model and the other --llm-* options set up llm:BASE_URL agents; none is named"
        )
    if text and jobs > 1 and os.name != "posix":
        raise ValueError(
            f"--jobs {jobs}: the settings of {', '.join(text)} reach worker processes only by "
            "fork, which this system lacks; use --jobs 1"
        )


def _resumed(
    checkpoint: str | None,
    header: dict[str, Any],
    games: int,
    resume: bool,
    variance: str | None,
    spec: GameSpec,
    options: dict[str, Any],
) -> dict[int, dict[str, Any]]:
    """The deals to resume (none without ``resume``), checked to carry the estimator's
    corrections when one is asked for."""
    if not resume:
        return {}
    done = _resumed_deals(checkpoint, header, games)
    if variance is not None and checkpoint:
        players = int(header["players"])
        check_resumed(done, players, checkpoint, model_label(spec, players, options))
    return done


def _resumed_deals(
    checkpoint: str | None, header: dict[str, Any], games: int
) -> dict[int, dict[str, Any]]:
    """The deals below ``games`` that the checkpoint already holds (none without one)."""
    if not (checkpoint and os.path.exists(checkpoint)):
        return {}
    resumed = read_checkpoint(checkpoint, header)
    for note in resumed.notes:  # damaged lines: said, and only their deals played again
        print(note, file=sys.stderr)
    return {d: r for d, r in resumed.deals.items() if d < games}


def refuse_overwrite(paths: Sequence[str]) -> None:
    """ValueError, before any game, if a checkpoint would replace a file that holds deals: a run
    started again without ``--resume`` must not throw away the hours already played."""
    for path in paths:
        if holds_deals(path):  # a header alone, or a part of one, holds no work: replaced
            raise ValueError(
                f"--checkpoint {path} already exists and holds an earlier run's deals: pass "
                "--resume to go on from them, or give a new path (or remove the file) to start over"
            )


def game_options(
    spec: GameSpec,
    options: dict[str, Any],
    preset: str | RuleConfig,
    rounds: Sequence[int] | None,
) -> tuple[dict[str, Any], RuleConfig | None]:
    """The options a game is created with, and its rules where its options are rules
    (``GameSpec.rules_options``, the contract game's: ``preset`` and ``rounds`` are the defaults
    of its ``preset`` and ``rounds`` options); the other games' options as given, and None."""
    if spec.rules_options is None:
        return options, None
    return spec.rules_options(options, preset, rounds)


def _check_request(
    spec: GameSpec,
    agents: Sequence[str],
    players: int,
    games: int,
    resume: bool,
    checkpoint: str | None,
    mixed: Sequence[str] | None,
) -> list[str]:
    """The line-up, once the request is checked (ValueError naming the problem)."""
    if games < 1:
        raise ValueError("--games must be at least 1")
    if resume and not checkpoint:
        raise ValueError("--resume needs --checkpoint PATH")
    if checkpoint and not resume:
        refuse_overwrite([checkpoint, *([checkpoint + ".mixed"] if mixed else [])])
    base = lineup(agents, players)
    for name in dict.fromkeys([*agents, *(mixed or ())]):
        # Fail fast, before any game: a bad name, a missing model, a model for another table.
        check_table(build_agent(name, 0, spec), players)
    if len(set(base)) < 2:  # nothing to compare the candidate with: no paired result
        raise ValueError(
            f"--agents {','.join(agents)}: an evaluation compares the candidate with another "
            "agent; name at least two different agents"
        )
    if mixed and len({base[0], *mixed}) < 2:
        raise ValueError(
            f"--mixed {','.join(mixed)}: the mixed table needs an agent other than the "
            f"candidate {base[0]!r}"
        )
    return base


def _config(
    spec: GameSpec,
    agents: Sequence[str],
    base: list[str],
    names: list[str],
    players: int,
    games: int,
    seed: int,
    options: dict[str, Any],
    rules: RuleConfig | None,
    jobs: int,
) -> dict[str, Any]:
    """``report["config"]``."""
    return {
        "agents": list(agents),
        "lineup": base,
        # Frozen versions (strong@v1 ...) are the contract game's bots (``GameSpec.version_of``);
        # a side game's names are their own versions.
        "versions": {n: version_of(spec, n) for n in names},
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


def version_of(spec: GameSpec, name: str) -> str:
    """The version ``name`` plays in ``spec``'s game (the name itself where it has none)."""
    return spec.version_of(name) if spec.version_of is not None else name


def _decider(
    test: Any,
    seatings: list[list[str]],
    names: list[str],
    candidate: str,
    opponent: str | None,
    sign: int,
) -> Callable[[dict[str, Any]], bool]:
    """True once the sequential test (if any) has decided, fed one deal's result at a time."""

    def decided(result: dict[str, Any]) -> bool:
        if test is None:
            return False
        pts = deal_points(result, seatings, names)
        return test.update(sign * (pts[candidate] - pts[opponent])) is not None

    return decided


def _play(
    done: dict[int, dict[str, Any]],
    games: int,
    deal: tuple[int, list[list[str]], str, dict[str, Any]],
    jobs: int,
    progress: bool,
    decided: Callable[[dict[str, Any]], bool],
    record: tuple[str, dict[str, Any], bool] | None,
    run: Callable[[list, int, bool], Any] | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The deals' results in deal order, and those played now: each deal is taken from the
    checkpoint (``done``, by deal number) or played and appended to it (``record``: its path,
    header and whether the file starts afresh), until ``games`` or the sequential test decides. ``deal``: (seed, seatings, game,
    options); ``run`` plays the missing ones (``run_deals``, or the estimator's
    ``variance.run_deals_corrected``)."""
    results: list[dict[str, Any]] = []
    played: list[dict[str, Any]] = []
    missing = [d for d in range(games) if d not in done]
    # Played lazily, in deal order: the loop stops taking them once the test decides.
    tasks = [(d, *deal) for d in missing]
    if run is None:  # read at the call: tests replace ``_run_deals``
        # Line-ups of compiled bots play on the game's batch (the same results, in one process).
        run = run_deals_batched if can_batch(tasks) else _run_deals
    new = iter(run(tasks, jobs, progress) if missing else ())
    writer: CheckpointWriter | None = None
    try:
        for d in range(games):
            result = done.get(d)
            if result is None:
                result = next(new)
                if record is not None:
                    if writer is None:
                        writer = CheckpointWriter(*record)
                    writer.write(result)
                played.append(result)
            results.append(result)
            if decided(result):
                break
    finally:
        if hasattr(new, "close"):
            new.close()  # stops the workers of deals no longer needed
        if writer is not None:
            writer.close()
    return results, played


def _mixed_summary(sub: dict[str, Any]) -> dict[str, Any]:
    """``report["mixed"]`` from the mixed table's own report."""
    return {
        "lineup": sub["config"]["lineup"],
        "versions": sub["config"]["versions"],
        "deals": sub["config"]["deals"],
        "agents": sub["agents"],
        "paired": sub["paired"],
        **({"variance": sub["variance"]} if "variance" in sub else {}),
        "timing": sub["timing"],
    }


# ----------------------------------------------------------------------------- command line


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:  # every problem is found before the first game, so no report is lost at the end
        check_outputs(args)
        saved = read_saved(args.from_json) if args.from_json else None
        request = None if args.from_json else evaluate_arguments(args)
    except ValueError as exc:
        parser.error(str(exc))
    if args.from_json:
        print(format_report(saved))
        if args.plot:
            plot_report(saved, args.plot)
        return 0
    try:
        report = evaluate(**request)
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
