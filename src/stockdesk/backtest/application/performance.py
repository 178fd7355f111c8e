"""Performance statistics of a NAV series and of a simulated portfolio: backtests and evaluation
portfolios report alike.

Conventions (so that numbers from different runs compare):
- Daily returns are the NAV's day-over-day changes; `days` is the number of NAV points.
- total_return = nav[-1] / nav[0] - 1; annual_return = (1 + total) ** (ppy / (days - 1)) - 1.
- volatility = std(returns, ddof=1) * sqrt(ppy); sharpe = mean / std * sqrt(ppy) with a 0 risk-free
  rate; sortino = mean / downside deviation * sqrt(ppy), downside deviation = sqrt(mean(min(r, 0)^2)).
- max_drawdown = min(nav / running max - 1) (<= 0); calmar = annual_return / |max_drawdown|.
- A statistic that is undefined (fewer than 2 points, zero deviation, no drawdown) is 0.0, never NaN
  or inf, so DTOs stay serialisable and comparable. A deviation below 1e-12 counts as zero: a
  constant-growth NAV has rounding-noise deviations that would otherwise give absurd ratios.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from pydantic import BaseModel, Field

from stockdesk.backtest.application.engine import Simulation
from stockdesk.shared.errors import BadRequestException

NOISE = 1e-12


class PerformanceMetrics(BaseModel):
    """Daily-return statistics; returns are fractions (0.12 = 12 %), drawdown is <= 0."""

    total_return: float
    annual_return: float
    sharpe: float
    sortino: float
    max_drawdown: float
    calmar: float
    volatility: float
    days: int


class StrategyMetrics(PerformanceMetrics):
    turnover: float = Field(description="average one-way turnover per year, as a multiple of the portfolio")
    win_rate: float = Field(description="share of position-periods (held between rebalances) that gained")
    trades: int = Field(description="orders executed: rebalance buys/sells plus stop-loss exits")
    stop_losses: int = 0
    rebalances: int = 0
    exposure: float = Field(0.0, description="average invested fraction")


def performance(nav: pd.Series, periods_per_year: int = 252) -> PerformanceMetrics:
    """Return, risk and risk-adjusted statistics of one NAV series (see the module docstring)."""
    if periods_per_year <= 0:
        raise BadRequestException(f"periods_per_year must be positive, got {periods_per_year}")
    values = nav.to_numpy(dtype="float64")
    if not np.isfinite(values).all() or (values <= 0).any():
        raise BadRequestException("nav must be positive and finite on every day")
    days = len(values)
    if days < 2:
        return PerformanceMetrics(
            total_return=0.0,
            annual_return=0.0,
            sharpe=0.0,
            sortino=0.0,
            max_drawdown=0.0,
            calmar=0.0,
            volatility=0.0,
            days=days,
        )
    returns = values[1:] / values[:-1] - 1.0
    total = values[-1] / values[0] - 1.0
    annual = (1.0 + total) ** (periods_per_year / (days - 1)) - 1.0
    root = math.sqrt(periods_per_year)
    mean = float(returns.mean())
    std = float(returns.std(ddof=1)) if len(returns) > 1 else 0.0
    downside = math.sqrt(float((np.minimum(returns, 0.0) ** 2).mean()))
    drawdown = min(float((values / np.maximum.accumulate(values) - 1.0).min()), 0.0)
    return PerformanceMetrics(
        total_return=finite(total),
        annual_return=finite(annual),
        sharpe=finite(mean / std * root) if std > NOISE else 0.0,
        sortino=finite(mean / downside * root) if downside > NOISE else 0.0,
        max_drawdown=finite(drawdown),
        calmar=finite(annual / -drawdown) if drawdown < -NOISE else 0.0,
        volatility=finite(std * root) if std > NOISE else 0.0,
        days=days,
    )


def strategy_metrics(sim: Simulation, periods_per_year: int = 252) -> StrategyMetrics:
    """Performance of the strategy's NAV plus its trading statistics.

    turnover is the summed one-way turnover of all executions per year of NAV history
    ((days - 1) / ppy years; 0.0 for fewer than 2 days); win_rate is the share of position-periods
    with a positive return (0.0 when there were none); exposure is the mean over days of the summed
    end-of-day weights.
    """
    base = performance(sim.nav, periods_per_year)
    years = (base.days - 1) / periods_per_year
    turnover = float(sim.turnover.sum()) / years if years > 0 else 0.0
    wins = sim.position_returns.to_numpy(dtype="float64")
    win_rate = float((wins > 0).mean()) if len(wins) else 0.0
    exposure = float(sim.weights.sum(axis=1).mean()) if len(sim.weights) else 0.0
    return StrategyMetrics(
        **base.model_dump(),
        turnover=finite(turnover),
        win_rate=finite(win_rate),
        trades=sim.orders,
        stop_losses=sim.stop_losses,
        rebalances=sim.rebalances,
        exposure=finite(exposure),
    )


def finite(value: float) -> float:
    """The DTOs never carry NaN or inf: an overflowed or undefined figure is reported as 0.0."""
    value = float(value)
    return value if math.isfinite(value) else 0.0
