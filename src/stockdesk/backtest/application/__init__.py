"""One execution module for fills and costs: the backtest context's application, used by the strategy
lab, evaluation and research.

- `trading_panel`: the dates x symbols prices a simulation trades on (adjusted and raw prices,
  limit prices, markets), from daily bars.
- `rules`: which market rules apply (price limits, T+1, lot sizes, capital).
- `orders`: `execute`, the realistic simulation both the strategy lab and evaluation use: next-open
  fills under price limits, suspensions, T+1 and lots, with stops and dated costs.
- `engine`: the frictionless vectorised simulation of target weights (close or open execution,
  stops, costs), the `Simulation` result and the equal-weight benchmark.
- `trades`: the trade table of a simulation.
- `costs`: per-market one-way cost models and slippage; dated cost frames (A-share stamp duty by
  trade date) and zero costs for side-by-side runs.
- `limits`: China A-share daily price limits.
- `fills`: entry, fill and forward returns of dated verdicts from daily bars; an equal-weight
  index for benchmark returns over the same windows.
- `portfolio`: a follow-the-verdict portfolio run through `execute`.
- `performance`: return, risk and risk-adjusted statistics of a NAV series, and of a simulation
  with its trading statistics.
"""

from stockdesk.backtest.application.costs import (
    DEFAULT_COSTS,
    CostModel,
    cost_frames,
    cost_model,
    cost_rates,
    stamp_duty,
    with_slippage,
    zero_costs,
)
from stockdesk.backtest.application.engine import Simulation, equal_weight_benchmark, simulate
from stockdesk.backtest.application.fills import (
    adjusted_prices,
    excess_outcomes,
    fills_and_returns,
    index_levels,
    trading_bars,
    window_returns,
)
from stockdesk.backtest.application.limits import (
    is_st,
    limit_fraction,
    limit_lookup,
    limit_price_arrays,
    limit_prices,
)
from stockdesk.backtest.application.orders import execute
from stockdesk.backtest.application.performance import (
    PerformanceMetrics,
    StrategyMetrics,
    performance,
    strategy_metrics,
)
from stockdesk.backtest.application.portfolio import follow_portfolio, verdict_weights
from stockdesk.backtest.application.rules import ExecutionRules
from stockdesk.backtest.application.trades import TRADE_COLUMNS
from stockdesk.backtest.application.trading_panel import TradingPanel, trading_panel

__all__ = [
    "DEFAULT_COSTS",
    "TRADE_COLUMNS",
    "CostModel",
    "ExecutionRules",
    "PerformanceMetrics",
    "Simulation",
    "StrategyMetrics",
    "TradingPanel",
    "adjusted_prices",
    "cost_frames",
    "cost_model",
    "cost_rates",
    "equal_weight_benchmark",
    "excess_outcomes",
    "execute",
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
    "stamp_duty",
    "strategy_metrics",
    "trading_bars",
    "trading_panel",
    "verdict_weights",
    "window_returns",
    "with_slippage",
    "zero_costs",
]
