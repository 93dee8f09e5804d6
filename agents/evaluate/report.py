"""An evaluation report for people: the plain-text table (``format_report``) and the PNG
(``plot_report``): points per game and win rate with their intervals, points by round or hand."""

from __future__ import annotations

import os
from typing import Any

from agents.games import DEFAULT_GAME, GameSpec, game_spec

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]


def spec_of(cfg: dict[str, Any]) -> GameSpec | None:
    """The spec of a report's game (reports written before ``--game`` are the default game's);
    None for a game no longer registered."""
    try:
        return game_spec(cfg.get("game", DEFAULT_GAME))
    except ValueError:
        return None


def rules_key(cfg: dict[str, Any]) -> str:
    """The config key naming the rules a report played (``GameSpec.rules_key``), or ""."""
    spec = spec_of(cfg)
    return spec.rules_key if spec is not None else ""


def describe(cfg: dict[str, Any]) -> str:
    """The game of a report's config, e.g. ``preset continental`` or ``game fifteen``."""
    key = rules_key(cfg)
    if key:
        return f"{key} {cfg[key]}"
    options = ", ".join(f"{k}={v}" for k, v in cfg.get("options", {}).items())
    return f"game {cfg['game']}" + (f" ({options})" if options else "")


def unit_of(cfg: dict[str, Any]) -> tuple[str, str, str]:
    """(unit, its segment, "lower"/"higher" is better) of a report's config."""
    unit = cfg.get("unit", "points")
    spec = spec_of(cfg)
    segment = spec.segment if spec is not None else "hand"
    return unit, segment, "higher" if cfg.get("higher_is_better") else "lower"


def seat_label(name: str, seat: int) -> str:
    """An agent in one seat: ``greedy (seat 1)`` (never ``greedy@1``: ``@`` names versions, as in
    ``strong@v1``)."""
    return f"{name} (seat {seat})"


def label(name: str, version: str | None) -> str:
    """``strong (strong@v1)`` for a bare name, the name itself when it is its own version."""
    return name if not version or version == name else f"{name} ({version})"


# ----------------------------------------------------------------------------- the text table

NO_INTERVAL = "n/a (1 deal)"  # one deal: no spread, so no interval (never a zero-width one)


def ci_text(ci: list[float] | None, fmt: str, width: int = 0) -> str:
    """``[lo, hi]`` in ``fmt`` (each bound ``width`` wide), or ``n/a (1 deal)`` padded to the
    same width where the report has no interval."""
    if ci is None:
        return f"{NO_INTERVAL:<{2 * width + 4}}" if width else NO_INTERVAL
    lo, hi = ci
    return f"[{lo:>{width}{fmt}}, {hi:>{width}{fmt}}]" if width else f"[{lo:{fmt}}, {hi:{fmt}}]"


def format_report(report: dict[str, Any]) -> str:
    """A plain-text table of the report."""
    cfg = report["config"]
    unit, segment, better = unit_of(cfg)
    versions = cfg.get("versions", {})
    lineup_text = ", ".join(label(n, versions.get(n)) for n in cfg["lineup"])
    lines = [
        f"{cfg['deals']} deals x {cfg['players']} rotations = {cfg['games']} games, "
        f"{describe(cfg)}, seed {cfg['seed']}, line-up {lineup_text} "
        f"({unit}: {better} is better; intervals: t over deals)",
        f"{'agent':<24} {unit + '/game (95% CI)':>28} {unit + '/' + segment:>13} "
        f"{'diff vs table (95% CI)':>28} {'win rate (95% CI)':>24} {'OpenSkill':>10}",
    ]
    lines += [_agent_line(name, a) for name, a in report["agents"].items()]
    cand = label(report["candidate"], versions.get(report["candidate"]))
    lines += _paired_lines(report["paired"], cand, versions, unit, segment)
    if report.get("variance"):
        lines += _variance_lines(report["variance"], cand, versions, unit)
    if report.get("sequential"):
        lines.append(_sequential_line(report["sequential"]))
    if report.get("mixed"):
        lines += _mixed_lines(report["mixed"], report["candidate"], cand)
    if report.get("rounds"):
        lines.append(_rounds_line(report["rounds"], report["agents"]))
    lines += text_lines(report["agents"], cfg.get("llm"))
    lines.append(
        f"identical round deals across rotations: {report['duplicate']['identical_round_deals']:.3f}"
    )
    lines.append(_timing_line(report["timing"]))
    return "\n".join(lines)


def _agent_line(name: str, a: dict[str, Any]) -> str:
    """One agent's row of the table."""
    return (
        f"{label(name, a.get('version')):<24} {a['mean_points']:>9.1f} "
        f"{ci_text(a['mean_points_ci95'], '.1f', 7)} "
        f"{a['mean_points_per_round']:>13.1f} "
        f"{a['mean_diff_vs_table']:>9.1f} {ci_text(a['mean_diff_vs_table_ci95'], '.1f', 7)} "
        f"{a['win_rate']:>8.3f} {ci_text(a['win_rate_ci95'], '.3f', 5)} "
        f"{a['openskill']['ordinal']:>10.2f}"
    )


def _paired_lines(
    paired: dict[str, Any], cand: str, versions: dict[str, str], unit: str, segment: str
) -> list[str]:
    """The candidate minus each opponent, and round by round where the report has it."""
    lines = []
    for name, p in paired.items():
        line = (
            f"paired {cand} - {label(name, versions.get(name))}: {p['mean_diff']:.1f} "
            f"{unit}/game {ci_text(p['ci95'], '.1f')}"
        )
        if "sd_per_deal" in p:
            sd = "n/a" if p["sd_per_deal"] is None else f"{p['sd_per_deal']:.1f}"
            line += (
                f" (per-deal SD {sd}); win rate {p['win_rate_diff']:+.3f} "
                f"{ci_text(p['win_rate_diff_ci95'], '+.3f')}"
            )
        lines.append(line)
        if p.get("by_round"):
            parts = [
                f"{seg}: {r['mean_diff']:+.1f} {ci_text(r['ci95'], '+.1f')}"
                for seg, r in p["by_round"].items()
            ]
            lines.append(f"  by {segment}: " + "; ".join(parts))
    return lines


def _variance_lines(
    variance: dict[str, Any], cand: str, versions: dict[str, str], unit: str
) -> list[str]:
    """The reduced paired differences beside the plain ones, and which decides."""
    lines = [
        f"variance reduction ({variance['estimator']}, value model "
        f"{', '.join(variance['models'])}, {variance['chance_events']} chance events): the plain "
        f"figure above decides; the reduced one is an unbiased estimate of the same difference"
    ]
    for name, v in variance["paired"].items():
        ratio = "n/a" if v["width_ratio"] is None else f"{v['width_ratio']:.2f}"
        sd = "n/a" if v["sd_per_deal"] is None else f"{v['sd_per_deal']:.1f}"
        lines.append(
            f"  reduced {cand} - {label(name, versions.get(name))}: {v['mean_diff']:.1f} "
            f"{unit}/game {ci_text(v['ci95'], '.1f')} (per-deal SD {sd}); plain "
            f"{ci_text(v['plain_ci95'], '.1f')}; width ratio {ratio}; mean correction "
            f"{v['mean_correction']:+.1f} {ci_text(v['mean_correction_ci95'], '+.1f')}"
        )
    return lines


def _sequential_line(seq: dict[str, Any]) -> str:
    """The sequential test's decision."""
    return (
        f"sequential test ({seq['test']}): H0 gain {seq['delta0']:g} vs H1 gain "
        f"{seq['delta1']:g}, alpha {seq['alpha']:g}, beta {seq['beta']:g}: "
        f"{seq['decision']} after {seq['deals']} deals (LLR {seq['llr']:.2f}, bounds "
        f"{seq['bounds'][0]:.2f}, {seq['bounds'][1]:.2f})"
    )


def _mixed_lines(mixed: dict[str, Any], candidate: str, cand: str) -> list[str]:
    """The candidate at the mixed table."""
    a = mixed["agents"][candidate]
    table = ", ".join(label(n, mixed["versions"].get(n)) for n in mixed["lineup"])
    lines = [
        f"mixed table ({table}; {mixed['deals']} deals): {cand} diff vs table "
        f"{a['mean_diff_vs_table']:.1f} {ci_text(a['mean_diff_vs_table_ci95'], '.1f')}, win rate "
        f"{a['win_rate']:.3f} {ci_text(a['win_rate_ci95'], '.3f')}"
    ]
    for name, p in mixed["paired"].items():
        lines.append(
            f"  mixed paired {cand} - {name}: {p['mean_diff']:.1f} {ci_text(p['ci95'], '.1f')}"
        )
    return lines


def _rounds_line(rounds: dict[str, Any], agents: dict[str, Any]) -> str:
    """Rounds without a closer, and how often each agent closed."""
    closers = ", ".join(
        f"{name} {a['close_rate']:.3f}" for name, a in agents.items() if "close_rate" in a
    )
    lo, hi = rounds["without_closer_rate_ci95"]
    return (
        f"rounds: {rounds['rounds']}, without a closer {rounds['without_closer_rate']:.3f} "
        f"[{lo:.3f}, {hi:.3f}]; share of its seat-rounds each agent closed: {closers}"
    )


def text_lines(agents: dict[str, Any], llm: dict[str, Any] | None) -> list[str]:
    """Each text agent's replies and the share that named no legal action."""
    lines = []
    for name, a in agents.items():
        t = a.get("text")
        if t is None:
            continue
        rate = "n/a" if t["illegal_reply_rate"] is None else f"{t['illegal_reply_rate']:.3f}"
        model = f"model {llm['model']}, " if llm else ""
        fallback = llm["fallback"] if llm else "the fallback"
        lines.append(
            f"text agent {name} ({model}fallback {fallback}): {t['replies']} replies, "
            f"{t['fallbacks']} named no legal action ({t['failed_requests']} requests failed); "
            f"illegal-reply rate {rate}"
        )
    return lines


def _timing_line(t: dict[str, Any]) -> str:
    """Wall time and rates, and the games' CPU time where the report has it."""
    line = (
        f"{t['seconds']:.1f} s, {t['games_per_s']:.2f} games/s, "
        f"{t['decisions_per_s']:.0f} decisions/s"
    )
    if "cpu_seconds" in t:
        line += f"; {t['cpu_seconds']:.1f} CPU s for the games ({t['cpu_s_per_game']:.2f} per game)"
        if t.get("resumed_deals"):
            line += f", {t['resumed_deals']} deals resumed from the checkpoint"
    return line


# ----------------------------------------------------------------------------- the plot


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
    labels_of = {n: display_name(n) for n in agents}
    cfg = report["config"]
    unit, segment, better = unit_of(cfg)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8))
    fig.suptitle(
        f"{' vs '.join(labels_of.values())}: {cfg['deals']} duplicate deals x {cfg['players']} seats "
        f"({cfg['games']} games), {describe(cfg)}, seed {cfg['seed']}",
        fontsize=12,
    )
    _bars(axes[0], agents, labels_of, "mean_points", f"Mean {unit} per game ({better} is better)")
    _bars(axes[1], agents, labels_of, "win_rate", "Win rate")
    axes[1].axvline(1.0 / cfg["players"], color="grey", linestyle="--", label="1 / players")
    axes[1].legend(loc="lower right", fontsize=9)
    _by_round(axes[2], agents, labels_of, unit, segment, spec_of(cfg))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _bars(ax: Any, agents: dict[str, Any], labels_of: dict[str, str], key: str, title: str) -> None:
    """One horizontal bar per agent with its 95% interval."""
    names = list(agents)
    ypos = list(range(len(names)))
    values = [agents[n][key] for n in names]
    # One deal has no interval: no error bar.
    cis = [agents[n][key + "_ci95"] or [agents[n][key]] * 2 for n in names]
    lows = [ci[0] for ci in cis]
    highs = [ci[1] for ci in cis]
    err = [  # clamped: a Wilson bound of a 100 % win rate can sit 1e-16 below it
        [max(0.0, v - lo) for v, lo in zip(values, lows, strict=True)],
        [max(0.0, hi - v) for v, hi in zip(values, highs, strict=True)],
    ]
    ax.barh(ypos, values, xerr=err, capsize=6, color=COLORS[: len(names)], alpha=0.85)
    ax.set_yticks(ypos, [labels_of[n] for n in names])
    ax.invert_yaxis()
    ax.set_title(title + " — 95% CI")
    for y, v, hi in zip(ypos, values, highs, strict=True):
        text = f"{v:.1f}" if key == "mean_points" else f"{v:.3f}"
        ax.text(hi, y, "  " + text, va="center", fontsize=10)
    ax.margins(x=0.25)
    ax.grid(axis="x", alpha=0.3)


def _by_round(
    ax: Any,
    agents: dict[str, Any],
    labels_of: dict[str, str],
    unit: str,
    segment: str,
    spec: GameSpec | None,
) -> None:
    """Each agent's mean score by round or hand (with the game's tick labels, the contract's
    melds under each round: ``GameSpec.segment_tick``)."""
    names = list(agents)
    for i, n in enumerate(names):
        rounds = sorted(agents[n]["points_by_round"], key=int)
        ax.plot(
            [int(r) for r in rounds],
            [agents[n]["points_by_round"][r] for r in rounds],
            marker="o",
            color=COLORS[i % len(COLORS)],
            label=labels_of[n],
        )
    played = sorted({int(r) for n in names for r in agents[n]["points_by_round"]})
    tick = spec.segment_tick if spec is not None else None
    if tick is not None:
        ax.set_xticks(played, [tick(r) for r in played])
        ax.set_xlabel(spec.segment_axis if spec is not None else segment)
    else:
        ax.set_xlabel(f"{segment} of the game (games that reached it)")
    ax.set_ylabel(f"mean {unit} in the {segment}")
    ax.set_title(f"Mean {unit} by {segment}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=9)
