"""Write a track record: JSON (the contract) or HTML (headline, tables, reliability and equity charts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from markupsafe import Markup

from stockdesk.evaluation.application.formatting import num, pct
from stockdesk.evaluation.application.track_charts import equity_chart, reliability_chart
from stockdesk.evaluation.application.track_text import headline_horizon
from stockdesk.evaluation.domain.track import TrackReport
from stockdesk.evaluation.presentation.report import output_format, templates
from stockdesk.shared import charts as shared_charts  # its renderers load matplotlib on first call only
from stockdesk.shared.exports import write_document
from stockdesk.shared.files import write_atomic

KINDS = ("live", "retrospective")


def groups(kind: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The rows of a kind's table: all, then per mode and per model when there is more than one
    (a single mode's or model's rows would repeat `all`)."""
    rows = [("all", kind["all"])]
    for name in ("mode", "model"):
        split = kind[f"by_{name}"]
        rows += [(f"{name} {m}", v) for m, v in split.items()] if len(split) > 1 else []
    return rows


def interval(value: list[float] | None, style: str) -> str:
    if value is None:
        return ""
    low, high = value
    if style == "num":
        return f" [{num(low)}, {num(high)}]"
    digits = 2 if style == "pct2" else 1
    return f" [{pct(low, digits)}, {pct(high, digits)}]"


def track_charts(report: TrackReport) -> list[dict[str, Any]]:
    h = str(headline_horizon(report.config["horizons"]))
    specs = []
    for kind in KINDS:
        scores = getattr(report, kind)
        if scores.get("entries"):
            specs.append(reliability_chart(scores["all"][h], h, kind))
    specs.append(equity_chart(report.portfolio))
    return [
        {
            "id": s.id,
            "title": s.title,
            "caption": s.caption,
            "svg": Markup(shared_charts.render_inline_svg(s)),
        }
        for s in specs
        if s is not None
    ]


def render_track_html(report: TrackReport) -> str:
    env = templates()
    env.filters["interval"] = interval
    horizons = [str(h) for h in report.config["horizons"]]
    return env.get_template("track.html.j2").render(
        r=report, kinds=KINDS, horizons=horizons, groups=groups, charts=track_charts(report)
    )


def write_track(report: TrackReport, out: Path) -> Path:
    """The track record as JSON, HTML or PDF (by `out`'s suffix), atomically."""
    if output_format(out) == "json":
        return write_atomic(out, report.model_dump_json(indent=2))
    return write_document(render_track_html(report), out)
