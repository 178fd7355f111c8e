"""The Track record page's view: the track report's figures formatted for the page, its charts.

Every figure comes from TrackService (the same report as `stockdesk track --json`); the one-line
headline is worded from the catalogue (en, zh) with the figures filled in by code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stockdesk.evaluation.application.formatting import num, pct
from stockdesk.evaluation.application.track_charts import equity_chart, reliability_chart
from stockdesk.evaluation.application.track_text import headline_horizon
from stockdesk.evaluation.domain.track import TrackReport

KINDS = ("live", "retrospective")


def _interval(value: list[float] | None, fmt: Any) -> str:
    return "" if value is None else f" [{fmt(value[0])}, {fmt(value[1])}]"


@dataclass
class ScoreRow:
    group: str  # all | mode | model (the page words it)
    horizon: str
    matured: int
    hit: str
    excess: str
    rank_ic: str
    calibrated: int
    uncalibrated: int
    brier: str | None
    skill: str | None
    ece: str | None
    group_value: str = ""  # the mode or model the row is of


@dataclass
class KindView:
    kind: str
    entries: int
    rows: list[ScoreRow] = field(default_factory=list)
    reliability: list[dict[str, Any]] = field(default_factory=list)
    tokens_per_verdict: str = "–"


@dataclass
class Headline:
    """The one-line track record's figures, formatted: the track page and the session page word
    them from the catalogue (`track.headline.*`) in the page's language."""

    headline_horizon: str
    live_matured: int
    hit: str
    hit_interval: str
    excess: str
    skill: str | None
    skill_interval: str
    calibrated: int
    uncalibrated: int
    retrospective: int


@dataclass
class TrackView(Headline):
    kinds: list[KindView] = field(default_factory=list)
    charts: list[dict[str, Any]] = field(default_factory=list)  # ChartSpec dicts for charts.js


def headline(live_all: dict[str, Any], h: str, retrospective: int) -> Headline:
    """The headline's figures from the live scores by horizon (`scores["all"]`)."""
    live = (live_all or {}).get(h) or {}
    return Headline(
        headline_horizon=h,
        live_matured=live.get("matured", 0),
        hit=pct(live.get("hit_rate"), 0),
        hit_interval=_interval((live.get("intervals") or {}).get("hit_rate"), lambda v: pct(v, 0)),
        excess=pct(live.get("mean_excess"), 1),
        skill=num(live["brier_skill"], 2) if live.get("brier_skill") is not None else None,
        skill_interval=_interval((live.get("intervals") or {}).get("brier_skill"), lambda v: num(v, 2)),
        calibrated=live.get("calibrated", 0),
        uncalibrated=live.get("uncalibrated", 0),
        retrospective=retrospective,
    )


def _row(group: tuple[str, str], h: str, m: dict[str, Any]) -> ScoreRow:
    cal = m["calibrated"] > 0
    return ScoreRow(
        group=group[0], group_value=group[1], horizon=h, matured=m["matured"],
        hit=pct(m["hit_rate"]) + _interval(m["intervals"]["hit_rate"], pct),
        excess=pct(m["mean_excess"], 2) + _interval(m["intervals"]["mean_excess"], lambda v: pct(v, 2)),
        rank_ic=f"{num(m['rank_ic']['mean'])} ({m['rank_ic']['dates']})",
        calibrated=m["calibrated"], uncalibrated=m["uncalibrated"],
        brier=num(m["brier"]) if cal else None,
        skill=(num(m["brier_skill"]) + _interval(m["intervals"]["brier_skill"], num)) if cal else None,
        ece=num(m["ece"]) if cal else None,
    )  # fmt: skip


def _kind(name: str, scores: dict[str, Any], h: str) -> KindView:
    view = KindView(kind=name, entries=scores.get("entries", 0))
    if not view.entries:
        return view
    groups: list[tuple[tuple[str, str], dict[str, Any]]] = [(("all", ""), scores["all"])]
    groups += [(("mode", m), v) for m, v in scores["by_mode"].items() if len(scores["by_mode"]) > 1]
    groups += [(("model", m), v) for m, v in scores["by_model"].items() if len(scores["by_model"]) > 1]
    view.rows = [_row(group, hz, m) for group, by_h in groups for hz, m in by_h.items()]
    view.reliability = scores["all"][h]["reliability"]
    view.tokens_per_verdict = num(scores["cost"]["tokens_per_verdict"], 0)
    return view


def track_view(report: TrackReport) -> TrackView:
    h = str(headline_horizon(report.config["horizons"]))
    charts = [
        reliability_chart(getattr(report, kind)["all"][h], h, kind)
        for kind in KINDS
        if getattr(report, kind).get("entries")
    ]
    charts.append(equity_chart(report.portfolio))
    line = headline(report.live.get("all") or {}, h, report.ledger["retrospective"])
    return TrackView(
        **vars(line),
        kinds=[_kind(kind, getattr(report, kind), h) for kind in KINDS],
        charts=[c.model_dump(mode="json") for c in charts if c is not None],
    )
