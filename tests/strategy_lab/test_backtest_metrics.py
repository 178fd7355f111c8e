"""Performance and strategy statistics against hand-computed small series."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from stockdesk.backtest.application import Simulation, performance, simulate, strategy_metrics
from stockdesk.shared.errors import BadRequestException

DAYS = pd.bdate_range("2024-01-01", periods=8)


def nav(*values: float) -> pd.Series:
    return pd.Series(values, index=DAYS[: len(values)], dtype="float64")


def test_each_statistic_of_a_small_series() -> None:
    # returns +10 %, -10 %, +10 %; 3 periods per year so that one year has passed (days - 1 = 3)
    result = performance(nav(1.0, 1.1, 0.99, 1.089), periods_per_year=3)
    assert result.days == 4
    assert result.total_return == pytest.approx(0.089)  # 1.089 / 1 - 1
    assert result.annual_return == pytest.approx(0.089)  # 1.089 ** (3 / 3) - 1
    # mean 0.1/3; deviations 0.2/3, -0.4/3, 0.2/3 -> var (0.04+0.16+0.04)/9/2 = 0.04/3, std 0.2/sqrt(3)
    assert result.volatility == pytest.approx(0.2)  # 0.2/sqrt(3) * sqrt(3)
    assert result.sharpe == pytest.approx(0.5)  # (0.1/3) / (0.2/sqrt(3)) * sqrt(3) = 0.1/0.2
    # downside deviation sqrt((0 + 0.01 + 0) / 3) = 0.1/sqrt(3) -> (0.1/3) / (0.1/sqrt(3)) * sqrt(3) = 1
    assert result.sortino == pytest.approx(1.0)
    assert result.max_drawdown == pytest.approx(-0.1)  # 0.99 / 1.1 - 1
    assert result.calmar == pytest.approx(0.89)  # 0.089 / 0.1


def test_annualisation_uses_days_minus_one() -> None:
    # 1.21 after 2 steps of a 4-steps-per-year series: (1.21) ** (4 / 2) - 1 = 0.4641
    assert performance(nav(1.0, 1.1, 1.21), periods_per_year=4).annual_return == pytest.approx(0.4641)


def test_max_drawdown_takes_the_deepest_fall_from_a_running_peak() -> None:
    # peaks 1.0 -> 0.8 (-20 %), then 1.5 -> 0.9 (-40 %), recovery to 1.6 does not erase it
    result = performance(nav(1.0, 0.8, 1.5, 1.2, 0.9, 1.6), periods_per_year=5)
    assert result.max_drawdown == pytest.approx(-0.4)
    assert result.total_return == pytest.approx(0.6)
    assert result.calmar == pytest.approx(0.6 / 0.4)  # annual = total when days - 1 = ppy


def test_undefined_statistics_are_zero_not_nan() -> None:
    flat = performance(nav(1.0, 1.0, 1.0, 1.0))
    assert flat.model_dump() == {
        "total_return": 0.0,
        "annual_return": 0.0,
        "sharpe": 0.0,
        "sortino": 0.0,
        "max_drawdown": 0.0,
        "calmar": 0.0,
        "volatility": 0.0,
        "days": 4,
    }
    # steady growth: no deviation (only rounding noise) and no drawdown -> ratios 0.0, returns real
    steady = performance(pd.Series([1.01**i for i in range(6)], index=DAYS[:6]), periods_per_year=5)
    assert steady.total_return == pytest.approx(1.01**5 - 1)
    assert steady.annual_return == pytest.approx(1.01**5 - 1)
    assert (steady.volatility, steady.sharpe, steady.sortino, steady.max_drawdown, steady.calmar) == (
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
    )
    single = performance(nav(1.3))
    assert (single.days, single.total_return, single.sharpe) == (1, 0.0, 0.0)
    two = performance(nav(1.0, 0.9), periods_per_year=1)  # one return: no sample std
    assert (two.total_return, two.volatility, two.sharpe) == (pytest.approx(-0.1), 0.0, 0.0)
    assert two.sortino == pytest.approx(-1.0)  # mean -0.1 / downside 0.1 * sqrt(1)
    for value in [*flat.model_dump().values(), *steady.model_dump().values(), *two.model_dump().values()]:
        assert math.isfinite(value)


def test_invalid_nav_is_a_bad_request() -> None:
    with pytest.raises(BadRequestException, match="positive"):
        performance(nav(1.0, float("nan"), 1.1))
    with pytest.raises(BadRequestException, match="periods_per_year"):
        performance(nav(1.0, 1.1), periods_per_year=0)


def test_strategy_metrics_from_a_simulation() -> None:
    sim = Simulation(
        nav=nav(1.0, 1.0, 1.1, 0.99, 1.089),
        returns=nav(0.0, 0.0, 0.1, -0.1, 0.1),
        weights=pd.DataFrame(
            {"A": [0.0, 0.6, 0.5, 0.5, 0.2], "B": [0.0, 0.4, 0.3, 0.3, 0.4]}, index=DAYS[:5]
        ),
        turnover=pd.Series([0.5, 0.3], index=DAYS[[1, 3]]),
        orders=7,
        stop_losses=2,
        position_returns=pd.Series([0.1, -0.2, 0.0, 0.3]),
        rebalances=2,
    )
    result = strategy_metrics(sim, periods_per_year=4)  # 5 points = 4 steps = 1 year
    assert result.turnover == pytest.approx(0.8)  # (0.5 + 0.3) / 1 year
    assert result.win_rate == pytest.approx(0.5)  # 0.1 and 0.3 gained; 0.0 is not a win
    assert (result.trades, result.stop_losses, result.rebalances) == (7, 2, 2)
    assert result.exposure == pytest.approx(0.64)  # mean of 0, 1.0, 0.8, 0.8, 0.6
    assert result.total_return == pytest.approx(0.089)
    assert result.max_drawdown == pytest.approx(-0.1)
    # two years of history halve the yearly turnover
    assert strategy_metrics(sim, periods_per_year=2).turnover == pytest.approx(0.4)


def test_strategy_metrics_of_a_run_without_trades() -> None:
    close = pd.DataFrame({"A": [10.0, 11.0, 12.0]}, index=DAYS[:3])
    sim = simulate(
        close,
        pd.DataFrame(columns=["A"], dtype="float64"),
        stop_loss=0.1,
        buy_cost=pd.Series({"A": 0.0}),
        sell_cost=pd.Series({"A": 0.0}),
    )
    result = strategy_metrics(sim)
    assert (result.win_rate, result.turnover, result.exposure, result.trades, result.rebalances) == (
        0.0,
        0.0,
        0.0,
        0,
        0,
    )
    assert result.total_return == 0.0
