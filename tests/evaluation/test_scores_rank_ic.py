"""Rank IC on hand-ranked cases with ties: per-date Spearman, mean, std, ICIR and t."""

from __future__ import annotations

import math
from datetime import date

import numpy as np
import pandas as pd
import pytest

from stockdesk.evaluation.application.scores import daily_ic, rank_ic

# Date A (ties in the signal):
#   signal  1, 2,   2,   3, 4    -> ranks 1, 2.5, 2.5, 4, 5   centred -2, -.5, -.5, 1, 2   (sum sq 9.5)
#   return .1, .3,  .2, .5, .4   -> ranks 1, 3,   2,   5, 4   centred -2,  0,  -1, 2, 1    (sum sq 10)
#   cross = 4 + 0 + .5 + 2 + 2 = 8.5               IC_A = 8.5 / sqrt(9.5 * 10) = 8.5 / sqrt(95)
# Date B: signal strictly falling while the return rises -> IC_B = -1.
# Date C (ties on both sides):
#   signal .5, .5, .8, .8, .2    -> ranks 2.5, 2.5, 4.5, 4.5, 1  centred -.5, -.5, 1.5, 1.5, -2  (9)
#   return .01, .03, .03, .05, -.02 -> ranks 2, 3.5, 3.5, 5, 1  centred -1, .5, .5, 2, -2       (9.5)
#   cross = .5 - .25 + .75 + 3 + 4 = 8              IC_C = 8 / sqrt(9 * 9.5) = 8 / sqrt(85.5)
# Date D has 4 symbols (< min_symbols), date E a constant signal: neither gives an IC.
IC_A = 8.5 / math.sqrt(95)
IC_B = -1.0
IC_C = 8 / math.sqrt(85.5)

DATES = ["2024-03-01"] * 5 + ["2024-03-04"] * 5 + ["2024-03-05"] * 5 + ["2024-03-06"] * 4 + ["2024-03-07"] * 5
SIGNAL = [
    *[1, 2, 2, 3, 4],
    *[0.9, 0.8, 0.7, 0.6, 0.5],
    *[0.5, 0.5, 0.8, 0.8, 0.2],
    *[1, 2, 3, 4],
    *[0.0] * 5,
]
RETURNS = [
    *[0.1, 0.3, 0.2, 0.5, 0.4],
    *[0.01, 0.02, 0.03, 0.04, 0.05],
    *[0.01, 0.03, 0.03, 0.05, -0.02],
    *[0.1, 0.2, 0.3, 0.4],
    *[0.01, 0.02, 0.03, 0.04, 0.05],
]


def test_per_date_spearman_with_ties_matches_hand_ranks() -> None:
    result = rank_ic(DATES, SIGNAL, RETURNS)
    assert [d.date for d in result.per_date] == [date(2024, 3, 1), date(2024, 3, 4), date(2024, 3, 5)]
    assert [d.ic for d in result.per_date] == pytest.approx([IC_A, IC_B, IC_C], abs=1e-12)
    assert [d.symbols for d in result.per_date] == [5, 5, 5]
    assert round(IC_A, 6) == 0.872082
    assert round(IC_C, 6) == 0.865181


def test_mean_std_icir_t_and_positive_share() -> None:
    result = rank_ic(DATES, SIGNAL, RETURNS)
    ics = [IC_A, IC_B, IC_C]
    mean = sum(ics) / 3
    std = math.sqrt(sum((x - mean) ** 2 for x in ics) / 2)
    assert result.dates == 3
    assert result.mean == pytest.approx(mean, abs=1e-12)
    assert result.std == pytest.approx(std, abs=1e-12)
    assert result.icir == pytest.approx(mean / std, abs=1e-12)
    assert result.t == pytest.approx(mean / (std / math.sqrt(3)), abs=1e-12)
    assert result.positive_share == pytest.approx(2 / 3)


def test_cross_check_against_scipy_spearmanr() -> None:
    stats = pytest.importorskip("scipy.stats")
    result = rank_ic(DATES, SIGNAL, RETURNS)
    for k, day in enumerate(result.per_date):
        lo = 5 * k
        expected = stats.spearmanr(SIGNAL[lo : lo + 5], RETURNS[lo : lo + 5]).statistic
        assert day.ic == pytest.approx(expected, abs=1e-12)


def test_cross_check_against_pandas_spearman() -> None:
    """pandas' DataFrame.corr(method="spearman") ranks with averaged ties too (no scipy needed)."""
    result = rank_ic(DATES, SIGNAL, RETURNS)
    for k, day in enumerate(result.per_date):
        frame = pd.DataFrame({"s": SIGNAL[5 * k : 5 * k + 5], "r": RETURNS[5 * k : 5 * k + 5]})
        assert day.ic == pytest.approx(frame.corr(method="spearman").loc["s", "r"], abs=1e-12)


def test_min_symbols_and_non_finite_points() -> None:
    # With min_symbols=4 date D (perfectly aligned, IC 1) counts too.
    result = rank_ic(DATES, SIGNAL, RETURNS, min_symbols=4)
    assert result.dates == 4
    assert result.per_date[3].ic == pytest.approx(1.0)
    # A NaN return drops that point: date A falls to 4 symbols and is skipped at min_symbols=5.
    returns = list(RETURNS)
    returns[0] = float("nan")
    assert [d.date.day for d in rank_ic(DATES, SIGNAL, returns).per_date] == [4, 5]


def test_one_date_or_zero_spread_gives_no_icir_or_t() -> None:
    one = rank_ic(DATES[:5], SIGNAL[:5], RETURNS[:5])
    assert one.dates == 1
    assert one.mean == pytest.approx(IC_A)
    assert one.std is None and one.icir is None and one.t is None
    # Two dates with the same IC: std 0, so no ICIR or t (never inf).
    same = rank_ic(DATES[:5] + ["2024-03-02"] * 5, SIGNAL[:5] * 2, RETURNS[:5] * 2)
    assert same.dates == 2
    assert same.std == 0.0
    assert same.icir is None and same.t is None


def test_no_dates_gives_none_mean() -> None:
    result = rank_ic(DATES[15:], SIGNAL[15:], RETURNS[15:])
    assert result.dates == 0
    assert result.mean is None and result.positive_share is None and result.per_date == []
    assert daily_ic([], [], []).empty


def test_dates_in_different_spellings_group_together() -> None:
    as_dates = [date.fromisoformat(d) for d in DATES]
    assert rank_ic(as_dates, SIGNAL, RETURNS) == rank_ic(
        np.array(DATES, dtype="datetime64[ns]"), SIGNAL, RETURNS
    )
