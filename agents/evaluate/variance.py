"""Variance reduction for the paired result: control variates at chance events, AIVAT-style
(Burch et al. 2018), reported beside the plain figure, which stays the one that decides.

**The estimator.** A game's score ``Y`` is reached through chance events (cards off the stock)
and decisions. At each chance event the referee, who sees the whole table, knows the outcomes and
their probabilities; with ``V`` any fixed value of the table for each seat, the correction

    C = sum over chance events of ( V(table after the outcome) - E[V(table after)] )

has expectation zero whatever ``V`` is: at each event the expectation of the bracket over the
outcome, given all that happened before, is ``E[V] - E[V] = 0`` (``chance_correction``), so the
sum of them has mean zero too (a martingale). ``Y - C`` is therefore unbiased for the mean of ``Y``;
where ``V`` tracks the luck of the draws, ``Y - C`` varies less. Decisions of bots whose policy is
known add terms of the same form with the policy's probabilities; every bot the harness names is
deterministic given its seed, so there the expectation equals the value and the term is zero: only
chance events contribute. A bot that randomises with probabilities the harness cannot read keeps
its share of the variance (still unbiased).

**In the harness.** ``evaluate(..., variance="aivat")`` (``continental evaluate --variance
aivat``) plays each game with the game's recorder (``GameSpec.chance_recorder``; the contract
game's: ``agents.contract.chance``) and stores each game's per-seat corrections in its entry
(``aivat``: value model, corrections, chance events), so a checkpoint holds them as data and
``--resume`` needs no replay. The report's ``variance`` section gives, per opponent, the reduced
paired difference (each seat's score minus its correction, averaged per deal as the plain one),
its interval, the plain interval, and the ratio of their widths. **The plain figure decides**
(``decides: "plain"``): the reduced one may decide a claim only where the estimator — its value
model file — was fixed before the data, which the report cannot know. Deals are still the
independent units: the corrections of a deal's seatings share its cards, so they are averaged
into the deal's value before the t interval.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from agents import is_oracle
from agents.evaluate.deals import observed, play_seating, run_deals
from agents.evaluate.stats import mean_ci95, paired_diff_ci95, sample_sd
from agents.games import GameSpec, game_spec

ESTIMATORS = ("aivat",)
KEY = "aivat"  # a game entry's key holding its corrections


def check_estimator(variance: str | None, spec: GameSpec, names: Sequence[str] = ()) -> None:
    """ValueError for an unknown estimator, one the game has no chance model for, or one asked
    for with an oracle diagnostic among ``names``: a bot that reads the hidden state could read the
    stock's order, and the corrections assume no player does."""
    if variance is None:
        return
    if variance not in ESTIMATORS:
        raise ValueError(
            f"variance={variance!r}: unknown estimator; choose one of {', '.join(ESTIMATORS)}"
        )
    if spec.chance_recorder is None:
        raise ValueError(
            f"variance={variance!r}: the {spec.name} game has no chance model "
            "(GameSpec.chance_recorder); only the plain figure is available"
        )
    for name in names:
        if is_oracle(name):
            raise ValueError(
                f"variance={variance!r}: agent {name!r} reads the hidden state, so the stock's "
                "order may steer its play and the corrections would lose their mean of zero; "
                "evaluate it without the estimator"
            )


def chance_correction(
    outcomes: Sequence[tuple[Any, float]], actual: Any, value: Callable[[Any], Sequence[float]]
) -> list[float]:
    """``value(actual) - sum_o p_o value(o)`` per seat at one chance node: ``outcomes`` are
    (outcome, probability) pairs summing to 1, ``actual`` the one that happened. ValueError for
    probabilities that are negative or do not sum to 1, or an ``actual`` that cannot happen."""
    probs = [p for _o, p in outcomes]
    if any(p < 0 for p in probs) or not math.isclose(math.fsum(probs), 1.0, abs_tol=1e-9):
        raise ValueError(f"chance outcomes' probabilities must be >= 0 and sum to 1, got {probs}")
    if not any(o == actual and p > 0 for o, p in outcomes):
        raise ValueError(f"outcome {actual!r} has no probability at this chance node")
    values = {i: list(value(o)) for i, (o, _p) in enumerate(outcomes)}
    seats = len(values[0])
    expected = [math.fsum(p * values[i][k] for i, (_o, p) in enumerate(outcomes))
                for k in range(seats)]  # fmt: skip
    now = list(value(actual))
    return [now[k] - expected[k] for k in range(seats)]


# ----------------------------------------------------------------------------- playing


def play_seating_corrected(task: tuple) -> dict[str, Any]:
    """``deals.play_seating`` with the game's chance recorder on: the game's entry gains its
    per-seat corrections (``KEY``)."""
    deal, seed, seatings, game, options, k = task
    spec = game_spec(game)
    traced, recorders = observed(spec, spec.chance_recorder)
    played = play_seating((deal, seed, seatings, traced, options, k))
    recorder = recorders[-1]
    played["game"][KEY] = {
        "model": recorder.model.label,
        "corrections": list(recorder.corrections),
        "chance_events": recorder.events,
    }
    return played


def run_deals_corrected(tasks: list, jobs: int, progress: bool) -> Iterable[dict[str, Any]]:
    """``deals.run_deals`` with ``play_seating_corrected`` as the worker's unit of work."""
    return run_deals(tasks, jobs, progress, play=play_seating_corrected)


# ----------------------------------------------------------------------------- checking


def model_label(spec: GameSpec, players: int, options: dict[str, Any]) -> str:
    """The label of the value model the game's recorder uses now (``ValueModel.label``)."""
    return spec.chance_recorder(spec.new_game(players, 0, dict(options))).model.label


def check_resumed(deals: dict[int, dict[str, Any]], players: int, path: str, model: str) -> None:
    """ValueError naming the first checkpointed deal whose games lack corrections (written
    without the estimator), hold malformed ones, or come from another value model than
    ``model`` (the one new deals would use: one report never mixes two)."""
    for d in sorted(deals):
        for k, g in enumerate(deals[d]["games"]):
            entry = g.get(KEY)
            if entry is None:
                raise ValueError(
                    f"--checkpoint {path}: deal {d} was played without --variance (no corrections "
                    "in its games); resume without --variance, or start a new checkpoint"
                )
            why = _bad_entry(entry, players)
            if why:
                raise ValueError(f"--checkpoint {path}: deal {d}'s game {k}: {why}")
            if entry["model"] != model:
                raise ValueError(
                    f"--checkpoint {path}: deal {d}'s corrections come from value model "
                    f"{entry['model']}, not this installation's {model}; start a new checkpoint"
                )


def _bad_entry(entry: Any, players: int) -> str | None:
    """Why a game's corrections are unusable (None when they are fine)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("model"), str):
        return f"its {KEY!r} entry is not an object naming its value model"
    corr = entry.get("corrections")
    if not isinstance(corr, list) or len(corr) != players:
        return f"its corrections are not one number per seat ({players})"
    if not all(isinstance(x, (int, float)) and math.isfinite(x) for x in corr):
        return f"its corrections {corr!r} are not all finite numbers"
    return None


# ----------------------------------------------------------------------------- the report


def corrected_points(
    result: dict[str, Any], seatings: list[list[str]], names: list[str]
) -> dict[str, float]:
    """Each agent's mean corrected score (score minus correction) over its seats in one deal."""
    acc: dict[str, list[float]] = {n: [] for n in names}
    for k, g in enumerate(result["games"]):
        corr = g[KEY]["corrections"]
        for s, n in enumerate(seatings[k]):
            acc[n].append(g["scores"][s] - corr[s])
    return {n: math.fsum(v) / len(v) for n, v in acc.items()}


def summary(
    results: list[dict[str, Any]],
    seatings: list[list[str]],
    names: list[str],
    candidate: str,
    paired: dict[str, dict[str, Any]],
    variance: str,
) -> dict[str, Any]:
    """``report["variance"]``: per opponent, the reduced paired difference beside the plain
    one (``paired``: the report's plain figures), and the ratio of their intervals' widths."""
    from agents.evaluate.aggregate import deal_points

    plain = [deal_points(r, seatings, names) for r in results]
    reduced = [corrected_points(r, seatings, names) for r in results]
    return {
        "estimator": variance,
        "models": sorted({g[KEY]["model"] for r in results for g in r["games"]}),
        "chance_events": sum(g[KEY]["chance_events"] for r in results for g in r["games"]),
        "decides": "plain",
        "paired": {n: _row(plain, reduced, candidate, n, paired[n]) for n in names[1:]},
    }


def _row(
    plain: list[dict[str, float]],
    reduced: list[dict[str, float]],
    candidate: str,
    n: str,
    paired: dict[str, Any],
) -> dict[str, Any]:
    """The candidate minus ``n``, reduced, beside its plain figure ``paired``."""
    from agents.evaluate.aggregate import interval, spread

    a = [x[candidate] for x in reduced]
    b = [x[n] for x in reduced]
    d = paired_diff_ci95(a, b)
    # The paired correction per deal: plain minus reduced (mean zero by construction).
    corr = [p[candidate] - p[n] - (x - y) for p, x, y in zip(plain, a, b, strict=True)]
    c = mean_ci95(corr)
    ci, plain_ci = interval(d[1], d[2]), paired["ci95"]
    ratio = None
    if ci is not None and plain_ci is not None and plain_ci[1] > plain_ci[0]:
        ratio = (ci[1] - ci[0]) / (plain_ci[1] - plain_ci[0])
    return {
        "mean_diff": d[0],
        "ci95": ci,
        "sd_per_deal": spread([x - y for x, y in zip(a, b, strict=True)]),
        "plain_mean_diff": paired["mean_diff"],
        "plain_ci95": plain_ci,
        "width_ratio": ratio,
        "mean_correction": c[0],
        "mean_correction_ci95": interval(c[1], c[2]),
        "correction_sd_per_deal": sample_sd(corr) if len(corr) > 1 else None,
    }


def variance_report(
    results: list[dict[str, Any]],
    seatings: list[list[str]],
    names: list[str],
    candidate: str,
    report: dict[str, Any],
    variance: str | None,
) -> dict[str, Any]:
    """``{"variance": summary(...)}`` for the report, or nothing without an estimator."""
    if variance is None:
        return {}
    return {"variance": summary(results, seatings, names, candidate, report["paired"], variance)}


# The deals' runner of each estimator (None: the harness's plain one).
RUNS: dict[str | None, Any] = {None: None, "aivat": run_deals_corrected}

__all__ = [
    "ESTIMATORS",
    "RUNS",
    "chance_correction",
    "check_estimator",
    "check_resumed",
    "corrected_points",
    "model_label",
    "play_seating_corrected",
    "run_deals_corrected",
    "summary",
    "variance_report",
]
