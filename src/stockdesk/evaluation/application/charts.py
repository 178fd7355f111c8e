"""The evaluation report's charts as ChartSpec data: the same chart module as the analysis report
(drawn by matplotlib into the HTML here, by ECharts in the web UI).

Each builder reads the report's JSON-shaped metrics and portfolio only, so a stored report can be
drawn again without recomputing anything.
"""

from __future__ import annotations

from typing import Any

from stockdesk.evaluation.domain.dtos import EvaluationReport
from stockdesk.shared.charts import ChartPanel, ChartSeries, ChartSpec, ReferenceLine

SET_LABELS = {"rules_baseline": "rules baseline", "always_hold": "always HOLD", "buy_and_hold": "buy & hold"}


def _label(name: str) -> str:
    return SET_LABELS.get(name, f"{name} mode")


def nav_chart(book: dict[str, Any], labels: dict[str, str], title: str, caption: str) -> ChartSpec | None:
    """Follow-the-verdict books (`book["curves"]`, named through `labels`) against the benchmark,
    as NAV from 1.0; None without dates. The evaluation report and the track record both draw it."""
    if not book or not book.get("dates"):
        return None
    series = [ChartSeries(name=labels.get(n, n), values=v) for n, v in book["curves"].items()]
    series.append(ChartSeries(name="benchmark", values=book["benchmark"]))
    return ChartSpec(
        id="equity",
        title=title,
        caption=caption,
        x=book["dates"],
        panels=[
            ChartPanel(
                y_label="NAV", series=series, lines=[ReferenceLine(label="start", value=1.0, style="zero")]
            )
        ],
    )


def bucket_chart(
    table: list[dict[str, Any]], *, chart_id: str, title: str, caption: str, y_label: str, stated: str
) -> ChartSpec:
    """A reliability diagram: per probability bucket, the mean stated probability (`stated`) beside
    the observed rate; the evaluation report and the track record both draw it."""
    return ChartSpec(
        id=chart_id,
        title=title,
        caption=caption,
        x=[f"{row['low']:.1f}-{row['high']:.1f}" for row in table],
        x_kind="category",
        panels=[
            ChartPanel(
                y_label=y_label,
                y_min=0.0,
                y_max=1.0,
                series=[
                    ChartSeries(name=stated, values=[row["mean_prob"] for row in table], kind="bar"),
                    ChartSeries(name="observed", values=[row["observed_rate"] for row in table], kind="bar"),
                ],
            )
        ],
    )


def equity_chart(report: EvaluationReport) -> ChartSpec | None:
    book = report.portfolio or {}
    labels = {name: _label(name) for name in book.get("curves", {})}
    return nav_chart(
        book,
        labels,
        "Follow-the-verdict portfolios",
        "Net asset value (1.0 at the first evaluation date) of holding each set's filled BUYs "
        "at their position size, traded at the next open with costs, against the benchmark.",
    )


def reliability_chart(report: EvaluationReport, mode: str, horizon: str) -> ChartSpec | None:
    detail = (report.metrics.get(mode) or {}).get(horizon, {}).get("detail")
    if not detail:
        return None
    return bucket_chart(
        detail["calibration"]["table"],
        chart_id="reliability",
        title=f"Reliability, {horizon}-day horizon",
        caption="Per confidence bucket: the verdicts' mean probability of beating the benchmark "
        "against how often they did; a calibrated desk has the bars at the same height.",
        y_label="share",
        stated="forecast",
    )


def ic_chart(report: EvaluationReport, mode: str, horizon: str) -> ChartSpec | None:
    detail = (report.metrics.get(mode) or {}).get(horizon, {}).get("detail")
    per_date = detail["rank_ic"]["per_date"] if detail else []
    if not per_date:
        return None
    return ChartSpec(
        id="rank-ic",
        title=f"Rank IC per evaluation date, {horizon}-day horizon",
        caption="Spearman correlation of the signed confidence with the next excess return across "
        "the symbols of each date (dates with at least 5 symbols); a real signal is positive on most dates.",
        x=[str(row["date"]) for row in per_date],
        panels=[
            ChartPanel(
                y_label="IC",
                series=[ChartSeries(name="rank IC", values=[row["ic"] for row in per_date], kind="bar")],
                lines=[ReferenceLine(label="0", value=0.0, style="zero")],
            )
        ],
    )


def hit_rate_chart(report: EvaluationReport, horizons: list[str]) -> ChartSpec | None:
    names = [n for n, by_h in report.metrics.items() if any(h in by_h for h in horizons)]
    if not names:
        return None
    return ChartSpec(
        id="hit-rate",
        title="Hit rate by horizon",
        caption="Share of verdicts that went the right way (BUY up, SELL down, HOLD within the band) at each "
        "horizon, for the mode and the baselines.",
        x=[f"{h} days" for h in horizons],
        x_kind="category",
        panels=[
            ChartPanel(
                y_label="hit rate",
                y_min=0.0,
                y_max=1.0,
                series=[
                    ChartSeries(
                        name=_label(n),
                        kind="bar",
                        values=[report.metrics[n].get(h, {}).get("hit_rate") for h in horizons],
                    )
                    for n in names
                ],
                lines=[ReferenceLine(label="50%", value=0.5, style="reference")],
            )
        ],
    )


def report_charts(report: EvaluationReport) -> list[ChartSpec]:
    """The four charts of the HTML report, those the data allows, in reading order."""
    mode = str(report.config["mode"])
    horizons = [str(h) for h in report.config["horizons"]]
    horizon = horizons[-1]
    built: list[Any] = [
        equity_chart(report),
        reliability_chart(report, mode, horizon),
        ic_chart(report, mode, horizon),
        hit_rate_chart(report, horizons),
    ]
    return [c for c in built if c is not None]


def missing_charts(report: EvaluationReport) -> list[str]:
    """Why a chart of the report is absent, in words for the page (a report always says)."""
    drawn = {c.id for c in report_charts(report)}
    reasons = {
        "equity": "Portfolios: no point had an entry day in the data.",
        "reliability": "Reliability: no point with a known forward return.",
        "rank-ic": "Rank IC per date: no evaluation date had 5 or more symbols with returns, so there is no "
        "cross-sectional IC to draw (evaluate 5+ symbols).",
        "hit-rate": "Hit rate by horizon: nothing was scored.",
    }
    return [text for chart, text in reasons.items() if chart not in drawn]
