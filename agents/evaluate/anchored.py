"""A leaderboard anchored on one reference, built from evaluation reports.

A round-robin leaderboard (``continental leaderboard --agents ...``) plays every agent on the
same deals, so its neighbours are paired; it needs as many deals for its closest pair as any
head-to-head run, and a search bot at several seconds a game makes that costly. The project's
decisive runs each play one candidate against a table of one *reference* (``search@v3`` against
three ``strong@v1``, ``strong@v2`` against three ``strong@v1`` ...), on hundreds to thousands
of deals. This module ranks those candidates by their paired difference to the reference::

    python -m agents.evaluate.leaderboard --reports results/search_v3_vs_strong_v1.json \\
        results/strength_v2_vs_v1.json --markdown results/leaderboard_vs_strong_v1.md

**What may be ranked together.** Every report must be a ``continental evaluate`` report
(``continental-eval/1``) of one candidate against ``players - 1`` seats of the same reference
agent, of the same game, table size, preset, rounds and game options, and the reference must
be the same version in all of them. A candidate version may appear once. A report written
before reports named versions is refused unless ``--assume-version NAME=VERSION`` says what
its names were (``strong=strong@v1``; a ``NAME@vN`` name is its own version, and a
``ppo:PATH`` row names the model file, whose contents the report does not record); such rows,
and the reference where its version was assumed, say so. A report stopped early by the
sequential test (``--sprt``) is a screen, and is refused.

**Per row.** The candidate's paired difference to the reference (its report's per-deal
difference, candidate minus the mean of the reference seats, with the report's 95% t interval
over deals), its per-deal SD, the win-rate difference, the deals and seed, and CPU seconds per
game where the report has them. The reference is a row of its own at 0.

**Neighbours.** Each row is compared with the next one down. Two candidates were measured on
different deals (different seeds), so their difference is the difference of two independent
estimates: standard error ``sqrt(sd1^2/n1 + sd2^2/n2)`` with Welch's degrees of freedom; the
comparison with the reference row is the candidate's own paired interval. Where two reports
share a seed they share deals too; treating them as independent then over-states the noise
when the two are positively correlated (the row says ``same deals``). ``separated`` says
whether the interval excludes 0; where it does not, the two are not ranked by these runs.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

from agents.evaluate.stats import t_quantile_975

SCHEMA = "continental-anchored-leaderboard/1"
_SAME = ("game", "players", "preset", "rounds", "options")


def _fail(path: str, why: str) -> ValueError:
    return ValueError(f"report {path!r}: {why}")


def _versions(
    cfg: Mapping[str, Any], path: str, assume: Mapping[str, str]
) -> tuple[str, str, list[str]]:
    """The candidate's and the reference's versions, and the names whose versions were
    assumed."""
    cand, ref = cfg["agents"][0], cfg["agents"][1]
    versions = cfg.get("versions")
    if versions:
        return versions[cand], versions[ref], []
    missing = [n for n in (cand, ref) if n not in assume and "@" not in n and ":" not in n]
    if missing:
        raise _fail(
            path,
            f"written before reports named versions; say what {', '.join(map(repr, missing))} "
            "played with --assume-version NAME=VERSION",
        )
    return assume.get(cand, cand), assume.get(ref, ref), [n for n in (cand, ref) if n in assume]


def read_report(path: str, assume: Mapping[str, str] | None = None) -> dict[str, Any]:
    """One evaluation report as a row: checks its shape and returns what the ranking needs;
    raises ``ValueError`` naming the file and what does not fit."""
    try:
        with open(path) as fh:
            report = json.load(fh)
    except OSError as exc:
        raise _fail(path, f"cannot be read ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise _fail(path, f"not JSON ({exc})") from None
    if not isinstance(report, dict) or report.get("schema") != "continental-eval/1":
        raise _fail(path, "not a `continental evaluate` report (schema continental-eval/1)")
    try:
        return _row(path, report, assume or {})
    except (KeyError, TypeError, IndexError) as exc:
        raise _fail(path, f"lacks or mangles a field of an evaluation report ({exc!r})") from None


def _row(path: str, report: dict[str, Any], assume: Mapping[str, str]) -> dict[str, Any]:
    cfg = report["config"]
    lineup = cfg["lineup"]
    cand, ref = cfg["agents"] if len(cfg["agents"]) == 2 else (None, None)
    if (
        cand is None
        or len(lineup) != cfg["players"]
        or lineup[0] != cand
        or any(n != ref for n in lineup[1:])
    ):
        raise _fail(
            path,
            f"line-up {lineup} is not one candidate against one reference in every other seat",
        )
    if "sequential" in report:
        raise _fail(
            path,
            "stopped by a sequential test (--sprt): a screening result, whose interval does "
            "not hold its 95 % once the run stopped early",
        )
    version, ref_version, assumed = _versions(cfg, path, assume)
    paired = report["paired"][ref]
    n = int(cfg["deals"])
    if n < 2:
        raise _fail(path, f"{n} deal(s): an interval needs at least 2")
    lo, hi = paired["ci95"]
    sd = paired.get("sd_per_deal")
    if sd is None:  # older reports: the SD from the interval's half-width
        sd = (hi - lo) / 2 * math.sqrt(n) / t_quantile_975(n - 1)
    timing = report.get("timing", {})
    return {
        "path": path,
        "candidate": cand,
        "version": version,
        "reference": ref_version,
        "assumed_version": cand in assumed,
        "assumed_names": assumed,
        "versions_recorded": bool(cfg.get("versions")),
        "deals": n,
        "seed": cfg["seed"],
        "mean_diff": paired["mean_diff"],
        "ci95": [lo, hi],
        "sd_per_deal": sd,
        "win_rate_diff": paired.get("win_rate_diff"),
        "win_rate_diff_ci95": paired.get("win_rate_diff_ci95"),
        "cpu_s_per_game": timing.get("cpu_s_per_game"),
        "same": {k: cfg.get(k) for k in _SAME},
        "unit": cfg.get("unit", "points"),
        "higher_is_better": bool(cfg.get("higher_is_better", False)),
    }


def _welch(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    """``a - b`` for two rows measured on independent deals: Welch's t interval."""
    va = a["sd_per_deal"] ** 2 / a["deals"]
    vb = b["sd_per_deal"] ** 2 / b["deals"]
    se = math.sqrt(va + vb)
    diff = a["mean_diff"] - b["mean_diff"]
    if se == 0:
        return {"mean_diff": diff, "ci95": [diff, diff], "separated": diff != 0}
    df = (va + vb) ** 2 / (va**2 / (a["deals"] - 1) + vb**2 / (b["deals"] - 1))
    half = t_quantile_975(max(1, math.floor(df))) * se
    lo, hi = diff - half, diff + half
    return {"mean_diff": diff, "ci95": [lo, hi], "separated": lo > 0 or hi < 0}


def anchored_leaderboard(
    paths: Sequence[str], assume: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Rank the candidates of ``paths`` (evaluation reports) by their paired difference to
    their common reference; raises ``ValueError`` naming the report that does not fit."""
    if not paths:
        raise ValueError("--reports: give at least one evaluation report")
    rows = [read_report(p, assume) for p in paths]
    _check_assumptions_used(rows, assume or {})
    _check_comparable(rows)
    first = rows[0]
    sign = 1 if first["higher_is_better"] else -1
    reference = _reference_row(rows)
    ranked = sorted([*rows, reference], key=lambda r: -sign * r["mean_diff"])
    _compare_neighbours(ranked)
    return {
        "schema": SCHEMA,
        "config": {
            "reference": first["reference"],
            **first["same"],
            "unit": first["unit"],
            "higher_is_better": first["higher_is_better"],
            "reports": list(paths),
            "reference_assumed_in": reference["assumed_in"],
        },
        "rows": ranked,
    }


def _check_assumptions_used(rows: Sequence[Mapping[str, Any]], assume: Mapping[str, str]) -> None:
    """ValueError naming each ``--assume-version`` name that no report without versions uses."""
    unused = sorted(set(assume) - {n for r in rows for n in r["assumed_names"]})
    if unused:
        raise ValueError(
            f"--assume-version {', '.join(map(repr, unused))}: no report without recorded "
            "versions names it"
        )


def _check_comparable(rows: Sequence[Mapping[str, Any]]) -> None:
    """ValueError naming the first report that does not fit the first one (its reference or a
    setting of ``_SAME`` differs), whose candidate is the reference, or that ranks a version
    again."""
    first = rows[0]
    seen: dict[str, str] = {}
    for r in rows:
        if r["reference"] != first["reference"]:
            raise _fail(
                r["path"],
                f"its reference is {r['reference']!r}, not {first['reference']!r} "
                f"(of {first['path']!r}); a ranking needs one reference",
            )
        for k in _SAME:
            if r["same"][k] != first["same"][k]:
                raise _fail(
                    r["path"],
                    f"its {k} is {r['same'][k]!r}, not {first['same'][k]!r} (of {first['path']!r})",
                )
        if r["version"] == r["reference"]:
            raise _fail(r["path"], f"its candidate is the reference {r['reference']!r} itself")
        if r["version"] in seen:
            raise _fail(
                r["path"], f"{r['version']!r} is already ranked from {seen[r['version']]!r}"
            )
        seen[r["version"]] = r["path"]


def _reference_row(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The reference's own row, at 0, with the reports that assumed its version."""
    ref = rows[0]["reference"]
    return {
        "candidate": ref,
        "version": ref,
        "assumed_in": [r["path"] for r in rows if len(r["assumed_names"]) > r["assumed_version"]],
        "reference_row": True,
        "mean_diff": 0.0,
        "ci95": [0.0, 0.0],
    }


def _compare_neighbours(ranked: Sequence[dict[str, Any]]) -> None:
    """Give each row but the last its ``vs_next``: the difference to the row below it."""
    for upper, lower in pairwise(ranked):
        if upper.get("reference_row") or lower.get("reference_row"):
            upper["vs_next"] = _paired_with_reference(upper, lower)
        else:
            upper["vs_next"] = _welch(upper, lower)
            upper["vs_next"]["paired"] = False
            upper["vs_next"]["same_deals"] = upper["seed"] == lower["seed"]


def _paired_with_reference(upper: Mapping[str, Any], lower: Mapping[str, Any]) -> dict[str, Any]:
    """``upper - lower`` where one of them is the reference: the candidate's own paired
    interval, turned round when the reference is above it."""
    below = bool(lower.get("reference_row"))
    cand = upper if below else lower
    lo, hi = cand["ci95"]
    d = cand["mean_diff"] if below else -cand["mean_diff"]
    ci = [lo, hi] if below else [-hi, -lo]
    return {"mean_diff": d, "ci95": ci, "separated": ci[0] > 0 or ci[1] < 0, "paired": True}


def _fmt(x: float) -> str:
    return f"{x:+.1f}" if x else "0"


def markdown(board: Mapping[str, Any]) -> str:
    """The anchored leaderboard as a Markdown table (best first)."""
    cfg = board["config"]
    ref = cfg["reference"]
    unit = cfg["unit"]
    direction = "higher is better" if cfg["higher_is_better"] else "lower is better"
    lines = [
        f"Every candidate against {cfg['players'] - 1} x `{ref}`, {cfg['players']} players, "
        f"game `{cfg['game']}`"
        + (f", preset `{cfg['preset']}`" if cfg.get("preset") else "")
        + f"; {unit} per game minus the reference seats' mean, {direction}; duplicate deals x "
        "every seating, 95% t intervals over deals",
        "",
        f"| rank | agent (version) | deals | seed | minus `{ref}` [95% CI] | per-deal SD "
        "| win rate minus the reference's | CPU s/game | minus the next [95% CI], separated? |",
        "|---:|---|---:|---:|---|---:|---|---:|---|",
    ]
    for i, r in enumerate(board["rows"], 1):
        if r.get("reference_row"):
            how = (
                " (reference; version assumed in some reports)"
                if r["assumed_in"]
                else " (reference)"
            )
            lines.append(f"| {i} | `{ref}`{how} | | | 0 | | | | {_vs(r)} |")
            continue
        lo, hi = r["ci95"]
        w = r.get("win_rate_diff")
        wci = r.get("win_rate_diff_ci95")
        win = f"{w:+.3f} [{wci[0]:+.3f}, {wci[1]:+.3f}]" if w is not None and wci else ""
        cpu = f"{r['cpu_s_per_game']:.2f}" if r.get("cpu_s_per_game") else ""
        note = ""
        if r["assumed_version"]:
            note = " (version assumed)"
        elif not r["versions_recorded"]:
            note = " (the report predates versions)"
        name = f"`{r['version']}`{note}"
        lines.append(
            f"| {i} | {name} | {r['deals']:,} | {r['seed']} | {_fmt(r['mean_diff'])} "
            f"[{lo:+.1f}, {hi:+.1f}] | {r['sd_per_deal']:.1f} | {win} | {cpu} | {_vs(r)} |"
        )
    lines += ["", "Reports: " + ", ".join(f"`{p}`" for p in cfg["reports"])]
    if cfg["reference_assumed_in"]:
        lines.append("")
        lines.append(
            f"The reference's version `{ref}` is assumed (--assume-version) in: "
            + ", ".join(f"`{p}`" for p in cfg["reference_assumed_in"])
        )
    return "\n".join(lines) + "\n"


def _vs(row: Mapping[str, Any]) -> str:
    nxt = row.get("vs_next")
    if not nxt:
        return ""
    lo, hi = nxt["ci95"]
    how = (
        "paired"
        if nxt["paired"]
        else ("same deals, unpaired" if nxt.get("same_deals") else "independent deals")
    )
    return f"{_fmt(nxt['mean_diff'])} [{lo:+.1f}, {hi:+.1f}] ({how}), " + (
        "yes" if nxt["separated"] else "**not separated**"
    )


def plot(board: Mapping[str, Any], path: str) -> None:
    """Each row's difference to the reference with its interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = board["rows"]
    cfg = board["config"]
    names = [r["version"].split("/")[-1] for r in rows]
    vals = [r["mean_diff"] for r in rows]
    lo = [r["mean_diff"] - r["ci95"][0] for r in rows]
    hi = [r["ci95"][1] - r["mean_diff"] for r in rows]
    colors = ["tab:gray" if r.get("reference_row") else "tab:blue" for r in rows]
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(rows) + 1.8))
    ax.barh(range(len(rows)), vals, xerr=[lo, hi], color=colors, alpha=0.85, capsize=4)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(rows)), names)
    ax.invert_yaxis()
    _label_bars(ax, vals)
    scale = _symlog_if_one_far_row(ax, vals)
    direction = "higher is better" if cfg["higher_is_better"] else "lower is better"
    ax.set_xlabel(f"{cfg['unit']} per game minus {cfg['reference']} ({direction}; 95% CI)")
    ax.set_title(f"Against {cfg['players'] - 1} x {cfg['reference']}, duplicate deals{scale}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _label_bars(ax: Any, vals: Sequence[float]) -> None:
    """Write each bar's value beside its end."""
    for y, v in enumerate(vals):
        ax.annotate(f"{v:+.1f}" if v else "0", (v, y), xytext=(4 if v >= 0 else -4, -12),
                    textcoords="offset points", ha="left" if v >= 0 else "right", fontsize=8)  # fmt: skip


def _symlog_if_one_far_row(ax: Any, vals: Sequence[float]) -> str:
    """One far row (greedy at +200 beside margins of a few points) would flatten the others:
    past a linear band around 0 the axis is then logarithmic. Returns the title's note on the
    scale ("" for a linear axis)."""
    sizes = sorted(abs(v) for v in vals if v)
    if len(sizes) >= 2 and sizes[-1] > 5 * sizes[-2]:
        ax.set_xscale("symlog", linthresh=max(1.0, sizes[-2]))
        return f"\naxis linear within ±{max(1.0, sizes[-2]):.0f}, logarithmic beyond"
    return ""
