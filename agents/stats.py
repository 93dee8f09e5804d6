"""Statistics for the evaluation harness: means with Student-t 95% confidence intervals.

Games inside one duplicate deal are correlated (same cards), so the harness first reduces every
deal to one number per agent (its mean over the seats it played in that deal) and computes the
interval over deals, which are independent. A paired comparison is the same on per-deal
differences. Pure Python, no scipy: the t quantiles for small samples come from a table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

# Two-sided 95% Student-t quantiles t(0.975, df) for df = 1..30; above 30 a smooth
# approximation converges to the normal 1.95996.
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
_Z975 = 1.959964


def t_quantile_975(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom."""
    if df < 1:
        raise ValueError("degrees of freedom must be at least 1")
    if df <= len(_T975):
        return _T975[df - 1]
    # Cornish-Fisher expansion, accurate to ~1e-4 for df > 30.
    z = _Z975
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


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
    "win_shares",
]
