"""Backtest metrics; simulation and costs live in the shared execution module (stockdesk.shared.execution)."""

from stockdesk.strategy_lab.application.backtest.metrics import performance, strategy_metrics

__all__ = ["performance", "strategy_metrics"]
