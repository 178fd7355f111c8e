"""The evaluation report's charts as ChartSpec data: the same chart module as the analysis report
(drawn by matplotlib into the HTML here, by ECharts in the web UI).

Each builder reads the report's JSON-shaped metrics and portfolio only, so a stored report can be
drawn again without recomputing anything. Their words are `ChartWords`: English for the HTML report,
the web catalogue's in the page's language for the evaluation page.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from stockdesk.evaluation.domain.dtos import EvaluationReport
from stockdesk.shared.charts import ChartPanel, ChartSeries, ChartSpec, ReferenceLine

SET_LABELS = {
    "rules": "rules mode", "experts": "experts mode", "full": "full mode", "rules_baseline": "rules baseline",
    "always_hold": "always HOLD", "buy_and_hold": "buy & hold", "benchmark": "benchmark",
}  # fmt: skip


class ChartWords(BaseModel):
    """Every word the report's charts show; `{horizon}` and `{every}` are filled in by the builders."""

    equity_title: str = "Follow-the-verdict portfolios"
    equity_caption: str = (
        "Net asset value (1.0 at the first evaluation date) of holding each set's filled BUYs at their "
        "position size, traded at the next open with costs, against the benchmark, until {every} trading "
        "days after the last evaluation date."
    )
    nav: str = "NAV"
    start: str = "start"
    reliability_title: str = "Reliability, {horizon}-day horizon"
    reliability_caption: str = (
        "Per confidence bucket: the verdicts' mean probability of beating the benchmark against how "
        "often they did; a calibrated desk has the bars at the same height."
    )
    share: str = "share"
    forecast: str = "forecast"
    observed: str = "observed"
    ic_title: str = "Rank IC per evaluation date, {horizon}-day horizon"
    ic_caption: str = (
        "Spearman correlation of the signed confidence with the next excess return across the symbols "
        "of each date (dates with at least 5 symbols); a real signal is positive on most dates."
    )
    ic_axis: str = "IC"
    rank_ic: str = "rank IC"
    hit_title: str = "Hit rate by horizon"
    hit_caption: str = (
        "Share of verdicts that went the right way (BUY up, SELL down, HOLD within the band) at each "
        "horizon, for the mode and the baselines."
    )
    hit_axis: str = "hit rate"
    days: str = "{horizon} days"
    sets: dict[str, str] = Field(default_factory=lambda: dict(SET_LABELS), description="set -> its name")

    def label(self, name: str) -> str:
        return self.sets.get(name, name)


ENGLISH = ChartWords()


def nav_chart(
    book: dict[str, Any], labels: dict[str, str], title: str, caption: str, words: ChartWords = ENGLISH
) -> ChartSpec | None:
    """Follow-the-verdict books (`book["curves"]`, named through `labels`) against the benchmark,
    as NAV from 1.0; None without dates. The evaluation report and the track record both draw it."""
    if not book or not book.get("dates"):
        return None
    series = [ChartSeries(name=labels.get(n, n), values=v) for n, v in book["curves"].items()]
    series.append(ChartSeries(name=words.label("benchmark"), values=book["benchmark"]))
    return ChartSpec(
        id="equity",
        title=title,
        caption=caption,
        x=book["dates"],
        panels=[
            ChartPanel(
                y_label=words.nav,
                series=series,
                lines=[ReferenceLine(label=words.start, value=1.0, style="zero")],
            )
        ],
    )


def bucket_chart(
    table: list[dict[str, Any]],
    *,
    chart_id: str,
    title: str,
    caption: str,
    y_label: str,
    stated: str,
    observed: str = "observed",
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
                    ChartSeries(name=observed, values=[row["observed_rate"] for row in table], kind="bar"),
                ],
            )
        ],
    )


def equity_chart(report: EvaluationReport, words: ChartWords = ENGLISH) -> ChartSpec | None:
    book = report.portfolio or {}
    labels = {name: words.label(name) for name in book.get("curves", {})}
    caption = words.equity_caption.format(every=report.config.get("every", ""))
    return nav_chart(book, labels, words.equity_title, caption, words)


def reliability_chart(
    report: EvaluationReport, mode: str, horizon: str, words: ChartWords = ENGLISH
) -> ChartSpec | None:
    detail = (report.metrics.get(mode) or {}).get(horizon, {}).get("detail")
    if not detail:
        return None
    return bucket_chart(
        detail["calibration"]["table"],
        chart_id="reliability",
        title=words.reliability_title.format(horizon=horizon),
        caption=words.reliability_caption,
        y_label=words.share,
        stated=words.forecast,
        observed=words.observed,
    )


def ic_chart(
    report: EvaluationReport, mode: str, horizon: str, words: ChartWords = ENGLISH
) -> ChartSpec | None:
    detail = (report.metrics.get(mode) or {}).get(horizon, {}).get("detail")
    per_date = detail["rank_ic"]["per_date"] if detail else []
    if not per_date:
        return None
    return ChartSpec(
        id="rank-ic",
        title=words.ic_title.format(horizon=horizon),
        caption=words.ic_caption,
        x=[str(row["date"]) for row in per_date],
        panels=[
            ChartPanel(
                y_label=words.ic_axis,
                series=[ChartSeries(name=words.rank_ic, values=[row["ic"] for row in per_date], kind="bar")],
                lines=[ReferenceLine(label="0", value=0.0, style="zero")],
            )
        ],
    )


def hit_rate_chart(
    report: EvaluationReport, horizons: list[str], words: ChartWords = ENGLISH
) -> ChartSpec | None:
    names = [n for n, by_h in report.metrics.items() if any(h in by_h for h in horizons)]
    if not names:
        return None
    return ChartSpec(
        id="hit-rate",
        title=words.hit_title,
        caption=words.hit_caption,
        x=[words.days.format(horizon=h) for h in horizons],
        x_kind="category",
        panels=[
            ChartPanel(
                y_label=words.hit_axis,
                y_min=0.0,
                y_max=1.0,
                series=[
                    ChartSeries(
                        name=words.label(n),
                        kind="bar",
                        values=[report.metrics[n].get(h, {}).get("hit_rate") for h in horizons],
                    )
                    for n in names
                ],
                lines=[ReferenceLine(label="50%", value=0.5, style="reference")],
            )
        ],
    )


def report_charts(report: EvaluationReport, words: ChartWords = ENGLISH) -> list[ChartSpec]:
    """The four charts of the report, those the data allows, in reading order, in `words`."""
    mode = str(report.config["mode"])
    horizons = [str(h) for h in report.config["horizons"]]
    horizon = horizons[-1]
    built: list[Any] = [
        equity_chart(report, words),
        reliability_chart(report, mode, horizon, words),
        ic_chart(report, mode, horizon, words),
        hit_rate_chart(report, horizons, words),
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
