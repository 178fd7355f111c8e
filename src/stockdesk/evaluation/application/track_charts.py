"""The track record's charts as ChartSpecs (matplotlib in the HTML file, ECharts in a page).

Reliability diagram: per probability bucket, the verdicts' mean stated probability_up beside the
observed share of positive excess returns (calibrated entries only). Equity curve: the
follow-the-verdicts book against the benchmark, from the report's portfolio.
"""

from __future__ import annotations

from typing import Any

from stockdesk.evaluation.application.charts import bucket_chart, nav_chart
from stockdesk.shared.charts import ChartSpec


def reliability_chart(scores: dict[str, Any], h: str, kind: str) -> ChartSpec | None:
    """None without a calibrated matured entry (nothing to draw)."""
    if not scores.get("calibrated"):
        return None
    return bucket_chart(
        scores["reliability"],
        chart_id=f"reliability-{kind}-{h}",
        title=f"Reliability, {kind} verdicts at {h} days ({scores['calibrated']} calibrated)",
        caption="Per bucket of stated probability_up: the mean stated probability beside the observed "
        "share of positive excess returns; equal bars mean the probabilities mean what they say.",
        y_label="probability",
        stated="stated",
    )


def equity_chart(book: dict[str, Any]) -> ChartSpec | None:
    labels = {"live": "following the live verdicts", "retrospective": "following the retrospective verdicts"}
    return nav_chart(
        book,
        labels,
        "Following the verdicts",
        "Net asset value (1.0 at the first verdict) of holding each filled BUY at its position "
        "size, traded at the next open with costs, against the benchmark; live and retrospective apart.",
    )
