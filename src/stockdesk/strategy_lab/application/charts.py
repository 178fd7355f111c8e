"""A backtest's equity curve as a ChartSpec (drawn by ECharts in the web UI, by matplotlib in files)."""

from __future__ import annotations

from stockdesk.shared.charts import ChartPanel, ChartSeries, ChartSpec, ReferenceLine
from stockdesk.strategy_lab.domain.dtos import BacktestResult


def equity_chart(result: BacktestResult, title: str) -> ChartSpec:
    """Strategy and equal-weight universe NAV (start = 1), day by day."""
    curve = result.equity_curve
    return ChartSpec(
        id="strategy-equity",
        title=title,
        caption="Net asset value (start = 1) of the strategy after costs, and of the equal-weight universe "
        "it trades.",
        x=[point.day.isoformat() for point in curve],
        panels=[
            ChartPanel(
                y_label="NAV",
                series=[
                    ChartSeries(name="strategy", values=[point.strategy for point in curve]),
                    ChartSeries(name="equal-weight universe", values=[point.benchmark for point in curve]),
                ],
                lines=[ReferenceLine(label="start", value=1.0, style="zero")],
            )
        ],
    )
