"""The portfolio view's charts as ChartSpecs of the one chart module (matplotlib in the report file,
ECharts on the page): current vs target weights, and the books' value over the window against the
benchmark."""

from __future__ import annotations

from stockdesk.portfolio.domain.view import PortfolioView
from stockdesk.shared.charts import ChartPanel, ChartSeries, ChartSpec, ChartWords, ReferenceLine


def allocation_chart(view: PortfolioView) -> ChartSpec | None:
    """Bars per name (current, target) in percent; None when no name has a weight."""
    shown = [a for a in view.allocations if a.current_weight > 0 or a.target_weight > 0]
    if not shown:
        return None
    w = ChartWords()
    return ChartSpec(
        id="portfolio-allocation",
        title=w("chart.portfolio.alloc.title", day=view.as_of.isoformat()),
        caption=w("chart.portfolio.alloc.caption"),
        x=[a.symbol for a in shown],
        x_kind="category",
        panels=[
            ChartPanel(
                y_label=w("chart.portfolio.alloc.axis"),
                series=[
                    ChartSeries(
                        name=w("chart.portfolio.alloc.current"), kind="bar",
                        values=[round(a.current_weight * 100, 2) for a in shown],
                    ),
                    ChartSeries(
                        name=w("chart.portfolio.alloc.target"), kind="bar",
                        values=[round(a.target_weight * 100, 2) for a in shown],
                    ),
                ],
                y_min=0.0,
            )
        ],
        i18n=w.i18n,
    )  # fmt: skip


def value_chart(view: PortfolioView) -> ChartSpec | None:
    """The target book, the current book and the benchmark as multiples of the window's start."""
    if len(view.curve) < 2:
        return None
    w = ChartWords()
    points = view.curve
    series = [
        ChartSeries(name=w("chart.portfolio.value.target"), values=[p.target for p in points]),
        ChartSeries(name=w("chart.portfolio.value.current"), values=[p.current for p in points]),
        ChartSeries(name=w("chart.eval.benchmark"), values=[p.benchmark for p in points]),
    ]
    return ChartSpec(
        id="portfolio-value",
        title=w("chart.portfolio.value.title", days=view.window_days),
        caption=w("chart.portfolio.value.caption"),
        x=[p.day.isoformat() for p in points],
        panels=[
            ChartPanel(
                y_label=w("chart.portfolio.value.axis"),
                series=series,
                lines=[ReferenceLine(label=w("chart.eval.start"), value=1.0, style="zero")],
            )
        ],
        i18n=w.i18n,
    )
