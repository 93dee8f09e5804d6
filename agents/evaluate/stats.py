"""Statistics for the evaluation harness and the leaderboard: Student-t means, binomial rates.

Games inside one duplicate deal are correlated (same cards), so the harness first reduces every
deal to one number per agent (its mean over the seats it played in that deal) and computes the
interval over deals, which are independent. A paired comparison is the same on per-deal
differences. t quantiles come from ``scipy.stats``. Win rates are per-deal win shares (the mean
over an agent's seats of one deal), with the same t interval over deals (``rate_ci95``): a deal's
rotations share the cards, so treating its games as independent trials (a Wilson interval over
games) makes the interval too narrow. Wilson intervals remain for rates of independent events.

``SPRT`` is a sequential test for quick screening: Wald's sequential probability ratio test on
the per-deal paired differences, normal with the variance estimated from the deals so far (the
plug-in "generalised" SPRT that fishtest uses), deciding between a mean of ``delta0`` and one of
``delta1`` with error rates ``alpha`` and ``beta``. ``deals_for_half_width`` and
``deals_for_power`` size a fixed-length run from a per-deal SD.
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
    """(mean, low, high): the mean with a two-sided 95% t interval. One value has no interval
    (its spread is unknown, not zero): both bounds are NaN (``has_interval``)."""
    m = mean(values)
    n = len(values)
    if n < 2:
        return m, math.nan, math.nan
    half = t_quantile_975(n - 1) * sample_sd(values) / math.sqrt(n)
    return m, m - half, m + half


def paired_diff_ci95(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float]:
    """Mean of ``a[i] - b[i]`` with its 95% t interval (pairs are deals)."""
    if len(a) != len(b):
        raise ValueError("paired samples must have the same length")
    return mean_ci95([x - y for x, y in zip(a, b, strict=True)])


def has_interval(low: float, high: float) -> bool:
    """Whether (low, high) is an interval (False for the NaN bounds of a single value)."""
    return not (math.isnan(low) or math.isnan(high))


def _clip(m: float, lo: float, hi: float, least: float, most: float) -> tuple[float, float, float]:
    """The interval clipped to the possible range [least, most] (NaN bounds kept: no interval)."""
    if not has_interval(lo, hi):
        return m, lo, hi
    return m, max(least, lo), min(most, hi)


def _check_shares(shares: Sequence[float]) -> None:
    bad = [x for x in shares if not 0.0 <= x <= 1.0]
    if bad:
        raise ValueError(f"shares must lie in [0, 1], got {bad[0]}")


def rate_ci95(shares: Sequence[float]) -> tuple[float, float, float]:
    """(rate, low, high): the mean of per-deal shares in [0, 1] with a 95% t interval over
    deals, clipped to [0, 1]. ValueError for a share outside [0, 1]."""
    _check_shares(shares)
    return _clip(*mean_ci95(shares), 0.0, 1.0)


def paired_share_diff_ci95(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float]:
    """Mean of ``a[i] - b[i]`` for per-deal shares in [0, 1] (win rates) with its 95% t
    interval, clipped to the possible range [-1, 1] of a difference of shares (a t interval
    over few deals can reach past it). ValueError for a share outside [0, 1]."""
    _check_shares(a)
    _check_shares(b)
    return _clip(*paired_diff_ci95(a, b), -1.0, 1.0)


def deals_for_half_width(sd: float, half_width: float) -> int:
    """Deals for a 95% interval of half-width ``half_width`` when the per-deal SD is ``sd``."""
    if sd < 0 or half_width <= 0:
        raise ValueError(f"need sd >= 0 and half_width > 0, got {sd} and {half_width}")
    z = float(_sp.norm.ppf(0.975))
    return max(2, math.ceil((z * sd / half_width) ** 2))


def deals_for_power(sd: float, effect: float, power: float = 0.8) -> int:
    """Deals for a two-sided 5% test to detect a true mean difference ``effect`` with ``power``."""
    if sd < 0 or effect == 0 or not 0 < power < 1:
        raise ValueError(f"need sd >= 0, effect != 0, 0 < power < 1; got {sd}, {effect}, {power}")
    z = float(_sp.norm.ppf(0.975)) + float(_sp.norm.ppf(power))
    return max(2, math.ceil((z * sd / effect) ** 2))


class SPRT:
    """Settings of a sequential test on per-deal differences x (one number per deal).

    H0: mean(x) = ``delta0``; H1: mean(x) = ``delta1``. After each deal (from ``burn_in`` deals
    on) the log-likelihood ratio of the normal model, with the variance estimated from the deals
    so far, is compared with Wald's bounds log(beta / (1 - alpha)) and log((1 - beta) / alpha):

        LLR = (delta1 - delta0) / var * (sum(x) - n (delta0 + delta1) / 2)

    The harness feeds the candidate's per-deal gain over the opponent (positive: the candidate
    did better, whatever the game's direction), so ``delta1`` is the gain worth detecting.
    """

    def __init__(
        self, delta0: float, delta1: float, alpha: float = 0.05, beta: float = 0.05,
        burn_in: int = 20,
    ) -> None:  # fmt: skip
        if delta0 == delta1:
            raise ValueError(f"the SPRT needs two different means, got {delta0} and {delta1}")
        if not (0 < alpha < 0.5 and 0 < beta < 0.5):
            raise ValueError(f"error rates must lie in (0, 0.5), got {alpha} and {beta}")
        if burn_in < 2:
            raise ValueError(f"burn_in must be at least 2 deals, got {burn_in}")
        self.delta0, self.delta1 = float(delta0), float(delta1)
        self.alpha, self.beta, self.burn_in = alpha, beta, burn_in
        self.lower = math.log(beta / (1 - alpha))
        self.upper = math.log((1 - beta) / alpha)

    def start(self) -> SequentialTest:
        """A fresh test with these settings."""
        return SequentialTest(self)

    def to_dict(self) -> dict[str, float]:
        return {"delta0": self.delta0, "delta1": self.delta1, "alpha": self.alpha,
                "beta": self.beta, "burn_in": self.burn_in}  # fmt: skip


class SequentialTest:
    """One running SPRT: ``update(x)`` per deal, None until it decides "H0" or "H1"."""

    def __init__(self, settings: SPRT) -> None:
        self.settings = settings
        self.values: list[float] = []
        self.decision: str | None = None
        self.llr = 0.0

    def update(self, x: float) -> str | None:
        """Add one deal's difference; the decision once reached (later values are ignored)."""
        if self.decision is not None:
            return self.decision
        self.values.append(float(x))
        st = self.settings
        n = len(self.values)
        if n < st.burn_in:
            return None
        var = sample_sd(self.values) ** 2
        if var <= 0:
            return None
        total = math.fsum(self.values)
        self.llr = (st.delta1 - st.delta0) / var * (total - n * (st.delta0 + st.delta1) / 2)
        if self.llr >= st.upper:
            self.decision = "H1"
        elif self.llr <= st.lower:
            self.decision = "H0"
        return self.decision

    def summary(self, candidate: str, opponent: str | None) -> dict[str, object]:
        """The test's settings, state and decision, for a report."""
        return {
            "test": "SPRT (normal, variance estimated from the deals so far)",
            "statistic": f"per-deal gain of {candidate} over {opponent} (positive: better)",
            **self.settings.to_dict(),
            "bounds": [self.settings.lower, self.settings.upper],
            "llr": self.llr,
            "deals": len(self.values),
            "decision": self.decision or "undecided",
        }


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
    "SPRT",
    "SequentialTest",
    "deals_for_half_width",
    "deals_for_power",
    "diff_vs_table",
    "has_interval",
    "mean",
    "mean_ci95",
    "paired_diff_ci95",
    "paired_share_diff_ci95",
    "rate_ci95",
    "sample_sd",
    "t_quantile_975",
    "wilson_ci95",
    "win_shares",
]
