"""The track record's charts as ChartSpecs (matplotlib in the HTML file, ECharts in a page).

Reliability diagram: per probability bucket, the verdicts' mean stated probability_up beside the
observed share of positive excess returns (calibrated entries only). Equity curve: the
follow-the-verdicts book against the benchmark, from the report's portfolio.
"""

from __future__ import annotations

from typing import Any

from stockdesk.shared.charts import ChartPanel, ChartSeries, ChartSpec, ReferenceLine


def reliability_chart(scores: dict[str, Any], h: str, kind: str) -> ChartSpec | None:
    """None without a calibrated matured entry (nothing to draw)."""
    if not scores.get("calibrated"):
        return None
    table = scores["reliability"]
    return ChartSpec(
        id=f"reliability-{kind}-{h}",
        title=f"Reliability, {kind} verdicts at {h} days ({scores['calibrated']} calibrated)",
        caption="Per bucket of stated probability_up: the mean stated probability beside the observed "
        "share of positive excess returns; equal bars mean the probabilities mean what they say.",
        x=[f"{row['low']:.1f}-{row['high']:.1f}" for row in table],
        x_kind="category",
        panels=[
            ChartPanel(
                y_label="probability",
                y_min=0.0,
                y_max=1.0,
                series=[
                    ChartSeries(name="stated", values=[row["mean_prob"] for row in table], kind="bar"),
                    ChartSeries(name="observed", values=[row["observed_rate"] for row in table], kind="bar"),
                ],
            )
        ],
    )


def equity_chart(book: dict[str, Any]) -> ChartSpec | None:
    if not book or not book.get("dates"):
        return None
    labels = {"live": "following the live verdicts", "retrospective": "following the retrospective verdicts"}
    series = [ChartSeries(name=labels.get(n, n), values=v) for n, v in book["curves"].items()]
    series.append(ChartSeries(name="benchmark", values=book["benchmark"]))
    return ChartSpec(
        id="equity",
        title="Following the verdicts",
        caption="Net asset value (1.0 at the first verdict) of holding each filled BUY at its position "
        "size, traded at the next open with costs, against the benchmark; live and retrospective apart.",
        x=book["dates"],
        panels=[
            ChartPanel(
                y_label="NAV", series=series, lines=[ReferenceLine(label="start", value=1.0, style="zero")]
            )
        ],
    )
