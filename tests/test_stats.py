"""agents.evaluate.stats: t quantiles from scipy, Wilson intervals for rates."""

from __future__ import annotations

import pytest

from agents.evaluate.stats import mean_ci95, t_quantile_975, wilson_ci95


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
