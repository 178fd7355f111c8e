"""The book's equity curve against its benchmark, as a ChartSpec of the one chart module (matplotlib
in the report file, ECharts on the page)."""

from __future__ import annotations

from collections.abc import Sequence

from stockdesk.paper.domain.models import PaperBook, PaperMark
from stockdesk.shared.charts import ChartPanel, ChartSeries, ChartSpec, ChartWords, ReferenceLine


def equity_chart(book: PaperBook, marks: Sequence[PaperMark]) -> ChartSpec | None:
    """Equity / capital and the benchmark / its first level, by day; None before the first step."""
    if not marks:
        return None
    w = ChartWords()
    first = next((m.benchmark for m in marks if m.benchmark), None)
    series = [ChartSeries(name=w("chart.paper.book"), values=[m.equity / book.capital for m in marks])]
    if first:
        series.append(
            ChartSeries(
                name=w("chart.eval.benchmark"),
                values=[None if m.benchmark is None else m.benchmark / first for m in marks],
            )
        )
    return ChartSpec(
        id="paper-equity",
        title=w("chart.paper.title", name=book.name),
        caption=w("chart.paper.caption"),
        x=[m.day.isoformat() for m in marks],
        panels=[
            ChartPanel(
                y_label=w("chart.paper.multiple"),
                series=series,
                lines=[ReferenceLine(label=w("chart.eval.start"), value=1.0, style="zero")],
            )
        ],
        i18n=w.i18n,
    )
