"""Statistics of a simulated strategy: its NAV's performance (`shared.execution.performance`, where
the conventions are) plus its trading statistics."""

from __future__ import annotations

from stockdesk.shared.execution import Simulation, performance
from stockdesk.shared.execution.performance import finite
from stockdesk.strategy_lab.domain.dtos import StrategyMetrics


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
