"""The report of an evaluation from its deals' results: per-agent means and intervals over deals,
paired differences, OpenSkill ratings, closers and the duplicate-deal check (the schema is in
``agents.evaluate.harness``).

Each agent's games in one deal are averaged first (they share the cards); means and intervals are
then taken over deals. Everything is summed in deal, rotation and seat order, so a report depends
only on the results, never on how they were played.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.evaluate.stats import (
    diff_vs_table,
    has_interval,
    mean_ci95,
    paired_diff_ci95,
    paired_share_diff_ci95,
    rate_ci95,
    sample_sd,
    wilson_ci95,
    win_shares,
)

SCHEMA = "continental-eval/1"
PER_DEAL = ("points", "per_round", "diff", "win")  # each agent's per-deal means


def deal_points(
    result: dict[str, Any], seatings: list[list[str]], names: list[str]
) -> dict[str, float]:
    """Each agent's mean final score over its seats in one deal's games."""
    acc: dict[str, list[float]] = {n: [] for n in names}
    for k, g in enumerate(result["games"]):
        for s, n in enumerate(seatings[k]):
            acc[n].append(g["scores"][s])
    return {n: sum(v) / len(v) for n, v in acc.items()}


def interval(low: float, high: float) -> list[float] | None:
    """``[low, high]`` of a report, or None where there is no interval (one deal)."""
    return [low, high] if has_interval(low, high) else None


def spread(values: Sequence[float]) -> float | None:
    """The per-deal SD of a report, or None where one deal gives no spread."""
    return sample_sd(values) if len(values) > 1 else None


def timing(
    results: list[dict[str, Any]],
    seconds: float,
    resumed: int,
    played: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Wall time of this process; CPU time of every deal's games (resumed deals included).
    ``played``: the deals played by this process (default: those after the ``resumed`` ones)."""
    games = sum(len(r["games"]) for r in results)
    decisions = sum(g["decisions"] for r in results for g in r["games"][:])
    if played is None:
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


def rate(model: Any, ratings: dict[str, Any], seat_names: Sequence[str], scores: list) -> None:
    """One OpenSkill update: each seat a team, ranked by ``scores`` (lower is better); an agent in
    several seats gets the mean of its seats' updated ratings."""
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


def rounds_summary(closing: dict[str, int]) -> dict[str, Any] | None:
    """Rounds played and the share that ran out without a closer (95% Wilson interval)."""
    if not closing["rounds"]:
        return None
    share = wilson_ci95(closing["without_closer"], closing["rounds"])
    return {
        **closing,
        "without_closer_rate": share[0],
        "without_closer_rate_ci95": [share[1], share[2]],
    }


def add_text_stats(
    totals: dict[str, dict[str, int]], text: dict[str, dict[str, int]] | None, names: Sequence[str]
) -> None:
    """Add one game's ``text`` counts (by seat) to ``totals`` (by agent name)."""
    for seat, counts in (text or {}).items():
        row = totals.setdefault(names[int(seat)], {})
        for key, value in counts.items():
            row[key] = row.get(key, 0) + value


def text_row(counts: dict[str, int]) -> dict[str, Any]:
    """A text agent's entry of a report: its counts and ``illegal_reply_rate``, the share of its
    replies that named no legal action (the fallback played them; None without a reply)."""
    replies = counts.get("replies", 0)
    return {
        "replies": replies,
        "fallbacks": counts.get("fallbacks", 0),
        "failed_requests": counts.get("failed_requests", 0),
        "illegal_reply_rate": counts.get("fallbacks", 0) / replies if replies else None,
    }


class _Tally:
    """The running sums of a report, fed deal by deal in deal order."""

    def __init__(self, seatings: list[list[str]], names: list[str], sign: int, model: Any) -> None:
        self.seatings, self.names, self.sign, self.model = seatings, names, sign, model
        self.per_deal: dict[str, dict[str, list[float]]] = {
            n: {key: [] for key in PER_DEAL} for n in names
        }
        # Per agent and round (hand): its mean score in each deal that reached it.
        self.round_deals: dict[str, dict[str, dict[int, float]]] = {n: {} for n in names}
        self.by_round: dict[str, dict[str, list[float]]] = {n: {} for n in names}
        self.ratings = {n: model.rating(name=n) for n in names}
        self.identical = 0
        self.round_pairs = 0
        # Rounds (contract game): how many ended, how many without a closer, how many each
        # agent's seats closed and sat in.
        self.closing = {"rounds": 0, "without_closer": 0}
        self.closed_by = dict.fromkeys(names, 0)
        self.seat_rounds = dict.fromkeys(names, 0)
        # Text agents' replies, fallbacks and failed requests, by agent.
        self.text: dict[str, dict[str, int]] = {}

    def add_deal(self, d: int, result: dict[str, Any]) -> None:
        """Every rotation of deal ``d``; the agents' per-deal means."""
        acc = {n: {key: [] for key in PER_DEAL} for n in self.names}
        racc: dict[str, dict[str, list[float]]] = {n: {} for n in self.names}
        self._compare_deals([g["fingerprints"] for g in result["games"]])
        for k, g in enumerate(result["games"]):
            self._add_game(g, self.seatings[k], acc, racc)
        for n in self.names:
            for key in PER_DEAL:
                values = acc[n][key]
                self.per_deal[n][key].append(sum(values) / len(values))
            for label, values in racc[n].items():
                self.round_deals[n].setdefault(label, {})[d] = sum(values) / len(values)

    def _compare_deals(self, prints: list[list[Any]]) -> None:
        """Count the rounds (hands) dealt identically in every rotation that reached them."""
        for r in range(max(len(p) for p in prints)):
            self.round_pairs += 1
            # Rotations that reached this deal (a fifteen-card game's length varies).
            seen = {p[r] for p in prints if r < len(p)}
            self.identical += len(seen) == 1

    def _add_game(
        self,
        g: dict[str, Any],
        seat_names: list[str],
        acc: dict[str, dict[str, list[float]]],
        racc: dict[str, dict[str, list[float]]],
    ) -> None:
        """One game of the deal: scores into ``acc``, rounds into ``racc``, ratings, closers."""
        scores = g["scores"]
        diffs = diff_vs_table(scores)
        wins = win_shares([-self.sign * x for x in scores])  # the best total wins
        segments = max(1, len(g["segments"]))
        for s, n in enumerate(seat_names):
            acc[n]["points"].append(scores[s])
            acc[n]["per_round"].append(scores[s] / segments)
            acc[n]["diff"].append(diffs[s])
            acc[n]["win"].append(wins[s])
        for label, pts in zip(g["segments"], g["segment_scores"], strict=True):
            for s, n in enumerate(seat_names):
                self.by_round[n].setdefault(label, []).append(pts[s])
                racc[n].setdefault(label, []).append(pts[s])
        rate(self.model, self.ratings, seat_names, [-self.sign * x for x in scores])
        self._add_closers(g["closers"] or (), seat_names)
        add_text_stats(self.text, g.get("text"), seat_names)

    def _add_closers(self, closers: Sequence[int | None], seat_names: list[str]) -> None:
        """Each ended round's closer (None: the round ran out without one)."""
        for closer in closers:
            self.closing["rounds"] += 1
            self.closing["without_closer"] += closer is None
            if closer is not None:
                self.closed_by[seat_names[closer]] += 1
            for n in seat_names:
                self.seat_rounds[n] += 1

    def agent_row(self, n: str, version: str, base: list[str], deals: int) -> dict[str, Any]:
        """Agent ``n``'s entry of ``report["agents"]``."""
        per_deal = self.per_deal[n]
        pts = mean_ci95(per_deal["points"])
        per_round = mean_ci95(per_deal["per_round"])
        diff = mean_ci95(per_deal["diff"])
        win = rate_ci95(per_deal["win"])
        rating = self.ratings[n]
        row = {
            "version": version,
            "seats": base.count(n),
            "games": base.count(n) * len(base) * deals,
            "mean_points": pts[0],
            "mean_points_ci95": interval(pts[1], pts[2]),
            "mean_points_sd_per_deal": spread(per_deal["points"]),
            "mean_points_per_round": per_round[0],
            "mean_points_per_round_ci95": interval(per_round[1], per_round[2]),
            "mean_diff_vs_table": diff[0],
            "mean_diff_vs_table_ci95": interval(diff[1], diff[2]),
            "win_rate": win[0],
            "win_rate_ci95": interval(win[1], win[2]),
            "points_by_round": {
                r: sum(v) / len(v)
                for r, v in sorted(self.by_round[n].items(), key=lambda kv: int(kv[0]))
            },
            "openskill": {"mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal()},
        }
        if self.closing["rounds"]:
            closes = wilson_ci95(self.closed_by[n], self.seat_rounds[n])
            row["close_rate"] = closes[0]  # share of its seat-rounds it closed
            row["close_rate_ci95"] = [closes[1], closes[2]]
        if n in self.text:  # a text agent: its replies and how many named no legal action
            row["text"] = text_row(self.text[n])
        return row

    def paired(self, candidate: str, n: str) -> dict[str, Any]:
        """``report["paired"][n]``: the candidate minus ``n`` on per-deal differences."""
        a, b = self.per_deal[candidate], self.per_deal[n]
        d = paired_diff_ci95(a["points"], b["points"])
        w = paired_share_diff_ci95(a["win"], b["win"])  # within [-1, 1]
        return {
            "mean_diff": d[0],
            "ci95": interval(d[1], d[2]),
            "sd_per_deal": spread([x - y for x, y in zip(a["points"], b["points"], strict=True)]),
            "win_rate_diff": w[0],
            "win_rate_diff_ci95": interval(w[1], w[2]),
            "by_round": self._paired_by_round(candidate, n),
        }

    def _paired_by_round(self, candidate: str, n: str) -> dict[str, Any]:
        """Round by round (hand by hand), over the deals where both reached it."""
        by = {}
        for label in sorted(self.round_deals[candidate], key=int):
            mine, theirs = self.round_deals[candidate][label], self.round_deals[n].get(label, {})
            both = [i for i in mine if i in theirs]
            if both:
                r = paired_diff_ci95([mine[i] for i in both], [theirs[i] for i in both])
                by[label] = {"mean_diff": r[0], "ci95": interval(r[1], r[2]), "deals": len(both)}
        return by


def aggregate(
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
    tally = _Tally(seatings, names, sign, model)
    for d, result in enumerate(results):
        tally.add_deal(d, result)
    return {
        "schema": SCHEMA,
        "config": {**config, "deals": deals, "games": deals * players},
        "candidate": candidate,
        "agents": {n: tally.agent_row(n, config["versions"][n], base, deals) for n in names},
        "paired": {n: tally.paired(candidate, n) for n in names[1:]},
        "rounds": rounds_summary(tally.closing),
        "duplicate": {
            "rotations": players,
            "identical_round_deals": (
                tally.identical / tally.round_pairs if tally.round_pairs else 1.0
            ),
        },
    }
