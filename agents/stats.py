"""Statistics for the evaluation harness and the leaderboard: Student-t means, binomial rates.

Games inside one duplicate deal are correlated (same cards), so the harness first reduces every
deal to one number per agent (its mean over the seats it played in that deal) and computes the
interval over deals, which are independent. A paired comparison is the same on per-deal
differences. t quantiles come from ``scipy.stats``. Win rates get a Wilson score interval, which
stays inside [0, 1] (a normal interval on a rate near 0 or 1 does not).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from scipy import stats as _sp


def t_quantile_975(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {df}")
    return float(_sp.t.ppf(0.975, df))


def wilson_ci95(successes: float, n: int) -> tuple[float, float, float]:
    """(rate, low, high): a rate with its 95% Wilson score interval.

    ``successes`` may be fractional (a tie splits a win). ValueError if ``n`` < 1 or the count
    is outside 0..n.
    """
    if n < 1:
        raise ValueError(f"a rate needs at least one trial, got n={n}")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must lie in 0..{n}, got {successes}")
    z = float(_sp.norm.ppf(0.975))
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return p, max(0.0, centre - half), min(1.0, centre + half)


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean (ValueError if empty)."""
    if not values:
        raise ValueError("mean of no values")
    return math.fsum(values) / len(values)


def sample_sd(values: Sequence[float]) -> float:
    """Sample standard deviation (n - 1 in the denominator); 0 for fewer than two values."""
    n = len(values)
    if n < 2:
        return 0.0
    m = mean(values)
    return math.sqrt(math.fsum((v - m) ** 2 for v in values) / (n - 1))


def mean_ci95(values: Sequence[float]) -> tuple[float, float, float]:
    """(mean, low, high): the mean with a two-sided 95% t interval (degenerate if n < 2)."""
    m = mean(values)
    n = len(values)
    if n < 2:
        return m, m, m
    half = t_quantile_975(n - 1) * sample_sd(values) / math.sqrt(n)
    return m, m - half, m + half


def paired_diff_ci95(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float]:
    """Mean of ``a[i] - b[i]`` with its 95% t interval (pairs are deals)."""
    if len(a) != len(b):
        raise ValueError("paired samples must have the same length")
    return mean_ci95([x - y for x, y in zip(a, b, strict=True)])


def win_shares(scores: Sequence[int]) -> list[float]:
    """Per seat, its share of the win: lowest total wins, ties split it equally."""
    best = min(scores)
    winners = sum(1 for s in scores if s == best)
    return [1.0 / winners if s == best else 0.0 for s in scores]


def diff_vs_table(scores: Sequence[int]) -> list[float]:
    """Per seat, own points minus the mean of the other seats' points (negative is better)."""
    n = len(scores)
    total = sum(scores)
    return [s - (total - s) / (n - 1) for s in scores]


__all__ = [
    "diff_vs_table",
    "mean",
    "mean_ci95",
    "paired_diff_ci95",
    "sample_sd",
    "t_quantile_975",
    "wilson_ci95",
    "win_shares",
]
