"""The evaluation report's charts as ChartSpec data: the same chart module as the analysis report
(drawn by matplotlib into the HTML here, by ECharts in the web UI).

Each builder reads the report's JSON-shaped metrics and portfolio only, so a stored report can be
drawn again without recomputing anything.
"""

from __future__ import annotations

from typing import Any

from stockdesk.evaluation.domain.dtos import EvaluationReport
from stockdesk.shared.charts import ChartPanel, ChartSeries, ChartSpec, ChartWords, ReferenceLine
from stockdesk.shared.wording import UnknownText, say

SET_LABELS = ("rules_baseline", "always_hold", "buy_and_hold")  # chart.eval.<set>; a mode: chart.eval.mode


def _label(name: str, w: ChartWords) -> str:
    if name in SET_LABELS:
        return w(f"chart.eval.{name}")
    return w.text(lambda lang: say("chart.eval.mode", lang, mode=_mode_name(name, lang)))


def _mode_name(mode: str, lang: str) -> str:
    try:
        return say(f"chart.eval.mode_name.{mode}", lang)
    except UnknownText:
        return mode


def nav_chart(
    book: dict[str, Any], labels: dict[str, str], title: str, caption: str, w: ChartWords | None = None
) -> ChartSpec | None:
    """Follow-the-verdict books (`book["curves"]`, named through `labels`) against the benchmark,
    as NAV from 1.0; None without dates. The evaluation report and the track record both draw it;
    `w` holds the other languages of the caller's texts."""
    if not book or not book.get("dates"):
        return None
    w = w or ChartWords()
    series = [ChartSeries(name=labels.get(n, n), values=v) for n, v in book["curves"].items()]
    series.append(ChartSeries(name=w("chart.eval.benchmark"), values=book["benchmark"]))
    start = [ReferenceLine(label=w("chart.eval.start"), value=1.0, style="zero")]
    return ChartSpec(
        id="equity",
        title=title,
        caption=caption,
        x=book["dates"],
        panels=[ChartPanel(y_label=w("chart.eval.nav"), series=series, lines=start)],
        i18n=w.i18n,
    )


def bucket_chart(
    table: list[dict[str, Any]],
    *,
    chart_id: str,
    title: str,
    caption: str,
    y_label: str,
    stated: str,
    w: ChartWords | None = None,
) -> ChartSpec:
    """A reliability diagram: per probability bucket, the mean stated probability (`stated`) beside
    the observed rate; the evaluation report and the track record both draw it."""
    w = w or ChartWords()
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
                    ChartSeries(
                        name=w("chart.eval.observed"),
                        values=[row["observed_rate"] for row in table],
                        kind="bar",
                    ),
                ],
            )
        ],
        i18n=w.i18n,
    )


def equity_chart(report: EvaluationReport) -> ChartSpec | None:
    book = report.portfolio or {}
    w = ChartWords()
    labels = {name: _label(name, w) for name in book.get("curves", {})}
    caption = w("chart.eval.equity_caption", every=report.config.get("every", ""))
    return nav_chart(book, labels, w("chart.eval.equity_title"), caption, w)


def reliability_chart(report: EvaluationReport, mode: str, horizon: str) -> ChartSpec | None:
    detail = (report.metrics.get(mode) or {}).get(horizon, {}).get("detail")
    if not detail:
        return None
    w = ChartWords()
    return bucket_chart(
        detail["calibration"]["table"],
        chart_id="reliability",
        title=w("chart.eval.reliability_title", h=horizon),
        caption=w("chart.eval.reliability_caption"),
        y_label=w("chart.eval.share"),
        stated=w("chart.eval.forecast"),
        w=w,
    )


def ic_chart(report: EvaluationReport, mode: str, horizon: str) -> ChartSpec | None:
    detail = (report.metrics.get(mode) or {}).get(horizon, {}).get("detail")
    per_date = detail["rank_ic"]["per_date"] if detail else []
    if not per_date:
        return None
    w = ChartWords()
    return ChartSpec(
        id="rank-ic",
        title=w("chart.eval.ic_title", h=horizon),
        caption=w("chart.eval.ic_caption"),
        x=[str(row["date"]) for row in per_date],
        panels=[
            ChartPanel(
                y_label="IC",
                series=[
                    ChartSeries(name=w("chart.eval.ic"), values=[row["ic"] for row in per_date], kind="bar")
                ],
                lines=[ReferenceLine(label="0", value=0.0, style="zero")],
            )
        ],
        i18n=w.i18n,
    )


def hit_rate_chart(report: EvaluationReport, horizons: list[str]) -> ChartSpec | None:
    names = [n for n, by_h in report.metrics.items() if any(h in by_h for h in horizons)]
    if not names:
        return None
    w = ChartWords()
    return ChartSpec(
        id="hit-rate",
        title=w("chart.eval.hit_title"),
        caption=w("chart.eval.hit_caption"),
        x=[w("chart.eval.days", h=h) for h in horizons],
        x_kind="category",
        panels=[
            ChartPanel(
                y_label=w("chart.eval.hit_rate"),
                y_min=0.0,
                y_max=1.0,
                series=[
                    ChartSeries(
                        name=_label(n, w),
                        kind="bar",
                        values=[report.metrics[n].get(h, {}).get("hit_rate") for h in horizons],
                    )
                    for n in names
                ],
                lines=[ReferenceLine(label="50%", value=0.5, style="reference")],
            )
        ],
        i18n=w.i18n,  # after the panels: their labels are written into `w` above
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
