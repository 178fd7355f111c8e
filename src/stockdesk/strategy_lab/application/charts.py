"""A backtest's curves as ChartSpecs (drawn by ECharts in the web UI, by matplotlib in files), and its
monthly returns as table data.

Everything is computed here with pandas from the replayed `BacktestResult`; the renderers only draw.
The split periods of a run are shaded so that a reader sees which part of the curve the loop saw
(in-sample), which part picked the champion (validation) and which part nobody saw (holdout).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from stockdesk.shared.charts import ChartPanel, ChartSeries, ChartSpec, ChartWords, ReferenceLine, Region
from stockdesk.shared.wording import say
from stockdesk.strategy_lab.domain.dtos import BacktestResult, Period, SplitPlan

SPLIT_COLORS = {"in-sample": "#5c6bc0", "validation": "#f9a825", "holdout": "#2e7d32"}
STRATEGY, GROSS, UNIVERSE = "#1f77b4", "#6baed6", "#7f7f7f"
GROSS_WIDTH = 0.7  # the no-cost line is context, not the result


def nav_frame(result: BacktestResult) -> pd.DataFrame:
    """The equity curve as a frame indexed by day: strategy (after costs), benchmark, gross."""
    curve = result.equity_curve
    frame = pd.DataFrame(
        {
            "strategy": [p.strategy for p in curve],
            "benchmark": [p.benchmark for p in curve],
            "gross": [np.nan if p.gross is None else p.gross for p in curve],
        },
        index=pd.DatetimeIndex([pd.Timestamp(p.day) for p in curve], name="day"),
        dtype="float64",
    )
    return frame


def drawdown(nav: pd.Series) -> pd.Series:
    """How far below its running peak the NAV is, as a fraction (<= 0)."""
    return nav / nav.cummax() - 1.0


def _span(days: pd.DatetimeIndex, period: Period) -> tuple[str, str] | None:
    """The first and last curve day inside `period` (the curve may start or stop inside it)."""
    inside = days[(days >= pd.Timestamp(period.start)) & (days <= pd.Timestamp(period.end))]
    if len(inside) == 0:
        return None
    return inside[0].date().isoformat(), inside[-1].date().isoformat()


def split_regions(
    plan: SplitPlan, days: pd.DatetimeIndex, *, labelled: bool = True, w: ChartWords | None = None
) -> list[Region]:
    """In-sample, validation and holdout as shaded spans over `days`.

    Walk-forward folds overlap (fold 2's in-sample window holds fold 1's validation window), so the
    in-sample span shaded is the first fold's, and each fold's validation window is its own span.
    """
    w = w or ChartWords()
    periods: list[tuple[str, str, Period]] = [
        ("in-sample", "chart.strategy.in_sample", plan.folds[0].in_sample)
    ]
    if plan.mode == "fixed":
        periods.append(("validation", "chart.strategy.validation", plan.folds[0].validation))
    else:
        periods += [
            ("validation", f"chart.strategy.validation_n|{n}", fold.validation)
            for n, fold in enumerate(plan.folds, start=1)
        ]
    periods.append(("holdout", "chart.strategy.holdout", plan.holdout))
    regions = []
    for kind, key, period in periods:
        span = _span(days, period)
        if span is None:
            continue
        name, _, n = key.partition("|")
        label = (w(name, n=n) if n else w(name)) if labelled else ""
        regions.append(Region(label=label, start=span[0], end=span[1], color=SPLIT_COLORS[kind]))
    return regions


def equity_chart(
    result: BacktestResult, title: str | Callable[[str], str], plan: SplitPlan | None = None
) -> ChartSpec:
    """Strategy NAV after costs (and without, thin), the equal-weight universe, and both drawdowns
    below; the run's split periods shaded when `plan` is given. `title`: the text, or how to word
    it in each language (a page's chart, shown in the page's language)."""
    w = ChartWords()
    frame = nav_frame(result)
    x = [day.date().isoformat() for day in frame.index]
    regions = split_regions(plan, frame.index, w=w) if plan is not None else []
    nav_series = [
        ChartSeries(name=w("chart.strategy.after_costs"), values=frame["strategy"].tolist(), color=STRATEGY)
    ]
    if frame["gross"].notna().any():
        gross = w("chart.strategy.gross")
        nav_series.append(
            ChartSeries(name=gross, values=frame["gross"].tolist(), width=GROSS_WIDTH, color=GROSS)
        )
    nav_series.append(
        ChartSeries(name=w("chart.strategy.universe"), values=frame["benchmark"].tolist(), color=UNIVERSE)
    )
    down = (drawdown(frame[["strategy", "benchmark"]]) * 100.0).round(4)

    def caption(lang: str) -> str:
        shaded = say("chart.strategy.caption_shaded", lang) if regions else ""
        return say("chart.strategy.caption", lang) + shaded

    return ChartSpec(
        id="strategy-equity",
        title=title if isinstance(title, str) else w.text(title),
        caption=w.text(caption),
        x=x,
        panels=[
            ChartPanel(
                y_label=w("chart.eval.nav"),
                height=2.0,
                series=nav_series,
                lines=[ReferenceLine(label=w("chart.eval.start"), value=1.0, style="zero")],
                regions=regions,
            ),
            ChartPanel(
                y_label=w("chart.strategy.drawdown_axis"),
                series=[
                    ChartSeries(
                        name=w("chart.strategy.drawdown"),
                        kind="area",
                        values=down["strategy"].tolist(),
                        color=STRATEGY,
                    ),
                    ChartSeries(
                        name=w("chart.strategy.universe_drawdown"),
                        values=down["benchmark"].tolist(),
                        width=GROSS_WIDTH,
                        color=UNIVERSE,
                    ),
                ],
                regions=split_regions(plan, frame.index, labelled=False) if plan is not None else [],
            ),
        ],
        i18n=w.i18n,
    )


def turnover_chart(result: BacktestResult) -> ChartSpec | None:
    """One-way turnover of each execution day (a share of the portfolio traded); None without any."""
    turnover = pd.Series(
        [t.turnover for t in result.turnover],
        index=[t.day.isoformat() for t in result.turnover],
        dtype="float64",
    )
    traded = turnover[turnover > 0]
    if traded.empty:
        return None
    w = ChartWords()
    bars = ChartSeries(name=w("chart.strategy.turnover"), kind="bar", values=(traded * 100).round(4).tolist())
    return ChartSpec(
        id="strategy-turnover",
        title=w("chart.strategy.turnover_title"),
        caption=w("chart.strategy.turnover_caption", n=len(traded), mean=f"{traded.mean():.0%}"),
        x=traded.index.tolist(),
        panels=[ChartPanel(y_label=w("chart.strategy.turnover_axis"), series=[bars])],
        i18n=w.i18n,
    )


@dataclass(frozen=True)
class MonthlyReturns:
    """Strategy returns after costs by calendar month: `cells[year][month - 1]` (None: no trading that
    month inside the curve) and each year's compounded total."""

    years: list[int]
    cells: dict[int, list[float | None]]
    totals: dict[int, float]


def monthly_returns(result: BacktestResult) -> MonthlyReturns:
    """Each month's return = its last NAV / the previous month's last NAV - 1; the first month starts
    from the curve's first NAV (the backtest's start), so the months compound to the total return."""
    nav = nav_frame(result)["strategy"]
    if len(nav) < 2:
        return MonthlyReturns(years=[], cells={}, totals={})
    month_end = nav.groupby(nav.index.to_period("M")).last()
    monthly = month_end / month_end.shift(1).fillna(nav.iloc[0]) - 1.0
    year_end = nav.groupby(nav.index.year).last()
    yearly = year_end / year_end.shift(1).fillna(nav.iloc[0]) - 1.0
    table = pd.DataFrame(
        {"year": monthly.index.year, "month": monthly.index.month, "value": monthly.to_numpy()}
    ).pivot(index="year", columns="month", values="value")
    table = table.reindex(columns=range(1, 13))
    years = [int(y) for y in table.index]
    cells = {year: [None if pd.isna(v) else float(v) for v in table.loc[year].tolist()] for year in years}
    return MonthlyReturns(years=years, cells=cells, totals={int(y): float(v) for y, v in yearly.items()})
