"""One execution module for fills and costs, shared by the strategy lab's backtests and evaluation.

- `engine`: vectorised portfolio simulation of target weights (close or open execution, stops,
  costs) and the equal-weight benchmark.
- `costs`: per-market one-way cost models and slippage.
- `limits`: China A-share daily price limits.
- `fills`: entry, fill and forward returns of dated verdicts from daily bars; an equal-weight
  index for benchmark returns over the same windows.
- `portfolio`: a follow-the-verdict portfolio run through the engine.
- `performance`: return, risk and risk-adjusted statistics of a NAV series, and of a simulation
  with its trading statistics.
"""

from stockdesk.shared.execution.costs import (
    DEFAULT_COSTS,
    CostModel,
    cost_model,
    cost_rates,
    with_slippage,
)
from stockdesk.shared.execution.engine import Simulation, equal_weight_benchmark, simulate
from stockdesk.shared.execution.fills import (
    adjusted_prices,
    fills_and_returns,
    index_levels,
    trading_bars,
    window_returns,
)
from stockdesk.shared.execution.limits import (
    is_st,
    limit_fraction,
    limit_lookup,
    limit_price_arrays,
    limit_prices,
)
from stockdesk.shared.execution.performance import (
    PerformanceMetrics,
    StrategyMetrics,
    performance,
    strategy_metrics,
)
from stockdesk.shared.execution.portfolio import follow_portfolio, verdict_weights

__all__ = [
    "DEFAULT_COSTS",
    "CostModel",
    "PerformanceMetrics",
    "Simulation",
    "StrategyMetrics",
    "adjusted_prices",
    "cost_model",
    "cost_rates",
    "equal_weight_benchmark",
    "fills_and_returns",
    "follow_portfolio",
    "index_levels",
    "is_st",
    "limit_fraction",
    "limit_lookup",
    "limit_price_arrays",
    "limit_prices",
    "performance",
    "simulate",
    "strategy_metrics",
    "trading_bars",
    "verdict_weights",
    "window_returns",
    "with_slippage",
]
