"""Vectorised backtest: simulate target weights, an equal-weight benchmark, metrics and costs."""

from stockdesk.strategy_lab.application.backtest.costs import DEFAULT_COSTS, cost_model, cost_rates
from stockdesk.strategy_lab.application.backtest.engine import Simulation, equal_weight_benchmark, simulate
from stockdesk.strategy_lab.application.backtest.metrics import performance, strategy_metrics

__all__ = [
    "DEFAULT_COSTS",
    "Simulation",
    "cost_model",
    "cost_rates",
    "equal_weight_benchmark",
    "performance",
    "simulate",
    "strategy_metrics",
]
