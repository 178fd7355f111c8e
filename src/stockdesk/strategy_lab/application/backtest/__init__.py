"""Backtest metrics, simulation and costs live in the shared execution module (stockdesk.shared.execution)."""

from stockdesk.shared.execution import performance, strategy_metrics

__all__ = ["performance", "strategy_metrics"]
