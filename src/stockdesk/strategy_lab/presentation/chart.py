"""Equity curve of a backtest as a PNG file: the strategy lab's equity chart (the one the web page
and the run report draw), rendered by the one chart module (`shared/charts`)."""

from __future__ import annotations

from pathlib import Path

from stockdesk.shared import charts as shared_charts
from stockdesk.shared.files import write_atomic
from stockdesk.strategy_lab.application.charts import equity_chart
from stockdesk.strategy_lab.domain.dtos import BacktestResult


def write_equity_png(result: BacktestResult, path: Path, title: str) -> Path:
    """Strategy NAV (after costs, and gross), the equal-weight universe and both drawdowns, written
    atomically to `path`."""
    return write_atomic(path, shared_charts.render_png(equity_chart(result, title)))
