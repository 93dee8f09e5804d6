"""agents.evaluate.stats: t quantiles from scipy, Wilson intervals for rates."""

from __future__ import annotations

import math

import pytest

from agents.evaluate.stats import (
    has_interval,
    mean_ci95,
    paired_share_diff_ci95,
    rate_ci95,
    t_quantile_975,
    wilson_ci95,
)


def test_t_quantiles_match_the_tables() -> None:
    assert t_quantile_975(1) == pytest.approx(12.7062, abs=1e-4)
    assert t_quantile_975(10) == pytest.approx(2.2281, abs=1e-4)
    assert t_quantile_975(100) == pytest.approx(1.9840, abs=1e-4)
    with pytest.raises(ValueError, match="degrees of freedom"):
        t_quantile_975(0)


def test_wilson_interval_on_textbook_values_stays_inside_zero_one() -> None:
    # 0 wins in 10: the normal interval would be [0, 0]; Wilson gives [0, 0.2775].
    rate, lo, hi = wilson_ci95(0, 10)
    assert rate == 0 and lo == 0 and hi == pytest.approx(0.2775, abs=1e-4)
    # 8 of 10: Wilson [0.4902, 0.9433].
    rate, lo, hi = wilson_ci95(8, 10)
    assert (lo, hi) == (pytest.approx(0.4902, abs=1e-4), pytest.approx(0.9433, abs=1e-4))
    rate, lo, hi = wilson_ci95(10, 10)
    assert hi == pytest.approx(1.0) and lo == pytest.approx(0.7225, abs=1e-4)
    # A near-zero rate: the mean +- t interval goes negative, Wilson does not.
    shares = [1.0] + [0.0] * 19
    assert mean_ci95(shares)[1] < 0 < wilson_ci95(sum(shares), len(shares))[1] + 1e-12


def test_wilson_refuses_bad_counts() -> None:
    with pytest.raises(ValueError, match="at least one trial"):
        wilson_ci95(0, 0)
    with pytest.raises(ValueError, match="successes"):
        wilson_ci95(11, 10)


def test_one_value_has_no_interval() -> None:
    for ci in (mean_ci95([3.0]), rate_ci95([1.0]), paired_share_diff_ci95([1.0], [0.0])):
        assert not has_interval(ci[1], ci[2]) and not math.isnan(ci[0])
    assert has_interval(*mean_ci95([3.0, 5.0])[1:])


def test_a_difference_of_shares_is_clipped_to_its_possible_range() -> None:
    # Differences 1, 0.5, 1, 0.5: mean 0.75, sd 0.2887, t(0.975, 3) = 3.182 -> +-0.4593.
    a, b = [1.0, 1.0, 1.0, 1.0], [0.0, 0.5, 0.0, 0.5]
    m, lo, hi = paired_share_diff_ci95(a, b)
    assert m == 0.75 and lo == pytest.approx(0.75 - 0.4593, abs=1e-4) and hi == 1.0
    m, lo, hi = paired_share_diff_ci95(b, a)
    assert m == -0.75 and lo == -1.0 and hi == pytest.approx(-0.75 + 0.4593, abs=1e-4)
    with pytest.raises(ValueError, match="shares must lie in"):
        paired_share_diff_ci95([1.5, 0.0], [0.0, 0.0])
