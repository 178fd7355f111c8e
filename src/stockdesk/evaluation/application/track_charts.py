"""The track record's charts as ChartSpecs (matplotlib in the HTML file, ECharts in a page).

Reliability diagram: per probability bucket, the verdicts' mean stated probability_up beside the
observed share of positive excess returns (calibrated entries only). Equity curve: the
follow-the-verdicts book against the benchmark, from the report's portfolio.
"""

from __future__ import annotations

from typing import Any

from stockdesk.evaluation.application.charts import bucket_chart, nav_chart
from stockdesk.shared.charts import ChartSpec, ChartWords
from stockdesk.shared.wording import UnknownText, say


def reliability_chart(scores: dict[str, Any], h: str, kind: str) -> ChartSpec | None:
    """None without a calibrated matured entry (nothing to draw)."""
    if not scores.get("calibrated"):
        return None
    w = ChartWords()
    title = w.text(
        lambda lang: say(
            "chart.track.reliability_title", lang, kind=_kind(kind, lang), h=h, n=scores["calibrated"]
        )
    )
    return bucket_chart(
        scores["reliability"],
        chart_id=f"reliability-{kind}-{h}",
        title=title,
        caption=w("chart.track.reliability_caption"),
        y_label=w("chart.track.probability"),
        stated=w("chart.track.stated"),
        w=w,
    )


def _kind(kind: str, lang: str) -> str:
    try:
        return say(f"chart.track.kind.{kind}", lang)
    except UnknownText:
        return kind


def equity_chart(book: dict[str, Any]) -> ChartSpec | None:
    w = ChartWords()
    labels = {"live": w("chart.track.live"), "retrospective": w("chart.track.retrospective")}
    title, caption = w("chart.track.equity_title"), w("chart.track.equity_caption")
    return nav_chart(book, labels, title, caption, w)
