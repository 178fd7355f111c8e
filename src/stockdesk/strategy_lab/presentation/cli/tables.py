"""Rich tables shared by the strategy commands."""

from __future__ import annotations

from rich.table import Table

from stockdesk.strategy_lab.domain.dtos import (
    BacktestResult,
    IterationRecord,
    PerformanceMetrics,
    StrategyMetrics,
)

ROWS = (
    ("total return", "total_return", "{:.1%}"),
    ("annual return", "annual_return", "{:.1%}"),
    ("Sharpe", "sharpe", "{:.2f}"),
    ("Sortino", "sortino", "{:.2f}"),
    ("max drawdown", "max_drawdown", "{:.1%}"),
    ("Calmar", "calmar", "{:.2f}"),
    ("volatility", "volatility", "{:.1%}"),
)
STRATEGY_ONLY = (
    ("turnover / year", "turnover", "{:.1f}x"),
    ("win rate", "win_rate", "{:.1%}"),
    ("trades", "trades", "{:,}"),
    ("stop-loss exits", "stop_losses", "{:,}"),
    ("rebalances", "rebalances", "{:,}"),
    ("average exposure", "exposure", "{:.0%}"),
)


def metrics_table(metrics: StrategyMetrics, benchmark: PerformanceMetrics) -> Table:
    table = Table("metric", "strategy", "equal-weight universe")
    for label, name, fmt in ROWS:
        table.add_row(label, fmt.format(getattr(metrics, name)), fmt.format(getattr(benchmark, name)))
    for label, name, fmt in STRATEGY_ONLY:
        table.add_row(label, fmt.format(getattr(metrics, name)), "-")
    return table


def backtest_heading(result: BacktestResult) -> str:
    p = result.params
    return (
        f"momentum {p.momentum_period}d · MA{p.ma_periods} · {p.catalyst_type} catalyst "
        f"({p.catalyst_lookback}) · top {p.n_stocks} · stop {p.stop_loss:.0%} · "
        f"{p.resample}{p.resample_offset} · {len(result.universe)} symbols · {result.start} → {result.end}"
    )


STATUS_STYLE = {
    "beat_benchmark": "bold green",
    "ran": "green",
    "invalid_metrics": "yellow",
    "backtest_failed": "red",
    "generation_failed": "red",
}


def iteration_row(record: IterationRecord) -> list[str]:
    style = STATUS_STYLE.get(record.status.value, "")
    params = record.params
    summary = (
        f"{params.momentum_period}/{params.ma_periods} {params.catalyst_type[:4]}{params.catalyst_lookback} "
        f"n{params.n_stocks} sl{params.stop_loss:.2f} {params.resample}{params.resample_offset}"
        if params
        else "-"
    )
    m = record.metrics
    last_error = record.errors[-1] if record.errors else {}
    note = (
        f"{last_error.get('field_path')}: {last_error.get('error_type')}"
        if record.status.value.endswith("failed") and last_error
        else ""
    )
    return [
        f"{record.number}{' ★' if record.is_champion else ''}",
        f"[{style}]{record.status.value}[/]",
        summary,
        f"{m.sharpe:.2f}" if m else "-",
        f"{m.annual_return:.1%}" if m else "-",
        f"{m.max_drawdown:.1%}" if m else "-",
        str(m.trades) if m else "-",
        str(record.attempts),
        f"{record.seconds:.0f}s",
        note,
    ]


ITERATION_COLUMNS = (
    "#", "status", "params", "Sharpe", "annual", "max DD", "trades", "tries", "time", "errors",
)  # fmt: skip


def iterations_table(records: list[IterationRecord]) -> Table:
    table = Table(*ITERATION_COLUMNS)
    for record in records:
        table.add_row(*iteration_row(record))
    return table
