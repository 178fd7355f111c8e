"""Rich tables shared by the strategy commands."""

from __future__ import annotations

from rich.table import Table

from stockdesk.strategy_lab.domain.dtos import (
    BacktestResult,
    ChampionSplits,
    IterationRecord,
    OverfittingFigures,
    PerformanceMetrics,
    StrategyMetrics,
)
from stockdesk.strategy_lab.domain.params import StrategyParams

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
    ("turnover / year", "turnover", "{:.1f}×"),
    ("win rate", "win_rate", "{:.1%}"),
    ("trades", "trades", "{:,}"),
    ("stop-loss exits", "stop_losses", "{:,}"),
    ("rebalances", "rebalances", "{:,}"),
    ("average exposure", "exposure", "{:.0%}"),
)


def metrics_table(
    metrics: StrategyMetrics, benchmark: PerformanceMetrics, gross: StrategyMetrics | None = None
) -> Table:
    """After costs, without costs (when given) and the equal-weight universe, side by side."""
    columns = ["metric", "strategy", *(["without costs"] if gross else []), "equal-weight universe"]
    table = Table(*columns)
    for label, name, fmt in ROWS:
        extra = [fmt.format(getattr(gross, name))] if gross else []
        table.add_row(label, fmt.format(getattr(metrics, name)), *extra, fmt.format(getattr(benchmark, name)))
    for label, name, fmt in STRATEGY_ONLY:
        extra = [fmt.format(getattr(gross, name))] if gross else []
        table.add_row(label, fmt.format(getattr(metrics, name)), *extra, "-")
    return table


SPLIT_ROWS = (
    ("Sharpe", "sharpe", "{:.2f}"),
    ("annual return", "annual_return", "{:.1%}"),
    ("max drawdown", "max_drawdown", "{:.1%}"),
    ("trades", "trades", "{:,}"),
)


def splits_table(splits: ChampionSplits) -> Table:
    """The champion over in-sample, validation and holdout (columns): after costs, without costs and
    the equal-weight universe (rows), narrow enough for an 80-column terminal."""
    names = ("in_sample", "validation", "holdout")
    figures = [getattr(splits, name) for name in names]
    table = Table("", *[name.replace("_", "-") for name in names])
    periods = []
    for item in figures:
        span = f"{item.periods[0].start}\n→ {item.periods[-1].end}" if item.periods else "-"
        periods.append(span + (f"\n({len(item.periods)} folds)" if len(item.periods) > 1 else ""))
    table.add_row("period", *periods)
    for label, field, fmt in SPLIT_ROWS:
        table.add_row(label, *[fmt.format(getattr(item, field)) for item in figures])
    table.add_row("Sharpe w/o costs", *[f"{i.gross.sharpe:.2f}" if i.gross else "-" for i in figures])
    table.add_row("universe Sharpe", *[f"{i.benchmark.sharpe:.2f}" if i.benchmark else "-" for i in figures])
    return table


def overfitting_lines(figures: OverfittingFigures) -> list[str]:
    lines = [f"trials: {figures.trials}"]
    if figures.deflated_sharpe is not None:
        lines.append(
            f"deflated Sharpe: {figures.deflated_sharpe:.2f} (probability that the champion's true Sharpe is "
            f"above 0 after {figures.trials} trials; "
            f"SR0 {figures.expected_max_sharpe_per_day or 0:.3f}/day over "
            f"{figures.observations} validation days)"
        )
    if figures.pbo is not None:
        lines.append(
            f"PBO: {figures.pbo:.2f} (share of {figures.combinations} CSCV splits where the in-sample best "
            "ranked in the bottom half out of sample)"
        )
    lines.extend(f"note: {note}" for note in figures.notes)
    return lines


def params_summary(p: StrategyParams) -> str:
    if p.strategy_type == "momentum":
        return (
            f"momentum {p.momentum_period}d · MA{p.ma_periods} · {p.catalyst_type} catalyst "
            f"({p.catalyst_lookback} months) · top {p.n_stocks} · stop {p.stop_loss:.0%} · "
            f"{p.resample}{p.resample_offset}"
        )
    if p.strategy_type == "mean_reversion":
        trend = f"MA{p.trend_ma}" if p.trend_ma else "no trend filter"
        return (
            f"mean reversion {p.lookback}d · enter z<=-{p.entry_z} · exit z>=-{p.exit_z} · {trend} · "
            f"top {p.n_stocks} · stop {p.stop_loss:.0%} · {p.resample}{p.resample_offset}"
        )
    trend = f"MA{p.trend_ma}" if p.trend_ma else "no trend filter"
    return (
        f"low volatility {p.vol_period}d · max {p.max_vol:.0%} · target {p.target_vol:.0%} · {trend} · "
        f"top {p.n_stocks} · stop {p.stop_loss:.0%} · {p.resample}{p.resample_offset}"
    )


def backtest_heading(result: BacktestResult) -> str:
    return f"{params_summary(result.params)} · {len(result.universe)} symbols · {result.start} → {result.end}"


def short_params(p: StrategyParams) -> str:
    if p.strategy_type == "momentum":
        return (
            f"mom {p.momentum_period}/{p.ma_periods} {p.catalyst_type[:4]}{p.catalyst_lookback} "
            f"n{p.n_stocks} sl{p.stop_loss:.2f} {p.resample}{p.resample_offset}"
        )
    if p.strategy_type == "mean_reversion":
        return (
            f"mr {p.lookback}d z{p.entry_z}/{p.exit_z} ma{p.trend_ma} "
            f"n{p.n_stocks} sl{p.stop_loss:.2f} {p.resample}{p.resample_offset}"
        )
    return (
        f"vol {p.vol_period}d max{p.max_vol} tgt{p.target_vol} ma{p.trend_ma} "
        f"n{p.n_stocks} sl{p.stop_loss:.2f} {p.resample}{p.resample_offset}"
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
    summary = short_params(record.params) if record.params else "-"
    m = record.metrics
    v = record.validation
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
        f"{v.sharpe:.2f}" if v else "-",
        f"{m.annual_return:.1%}" if m else "-",
        f"{m.max_drawdown:.1%}" if m else "-",
        str(m.trades) if m else "-",
        str(record.attempts),
        f"{record.seconds:.0f}s",
        note,
    ]


ITERATION_COLUMNS = (
    "#", "status", "params", "IS Sharpe", "val Sharpe", "IS annual", "IS max DD", "IS trades", "tries",
    "time", "errors",
)  # fmt: skip


def iterations_table(records: list[IterationRecord]) -> Table:
    table = Table(*ITERATION_COLUMNS)
    for record in records:
        table.add_row(*iteration_row(record))
    return table
