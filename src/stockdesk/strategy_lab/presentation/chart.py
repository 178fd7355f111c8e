"""Equity curve of a backtest as a PNG (matplotlib, no display needed)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from matplotlib.figure import Figure

from stockdesk.strategy_lab.domain.dtos import BacktestResult

TITLE_WIDTH = 95  # characters per title line: the figure is 9 inches wide


def write_equity_png(result: BacktestResult, path: Path, title: str) -> Path:
    """Strategy and equal-weight benchmark NAV, written atomically to `path`."""
    days = [p.day for p in result.equity_curve]
    figure = Figure(figsize=(9, 4.5), dpi=110)  # no pyplot: no global state, no display backend
    axis = figure.subplots()
    curve = result.equity_curve
    axis.plot(days, [p.strategy for p in curve], label="strategy", linewidth=1.4)
    axis.plot(days, [p.benchmark for p in curve], label="equal-weight universe", linewidth=1)
    axis.set_title(textwrap.fill(title, TITLE_WIDTH), fontsize=9)
    axis.set_ylabel("NAV (start = 1)")
    axis.grid(alpha=0.3)
    axis.legend(loc="upper left")
    figure.autofmt_xdate()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.png")
    figure.savefig(tmp, format="png")
    tmp.replace(path)
    return path
