"""Write an evaluation report: JSON (the contract) or HTML (summary, charts, tables), atomically.

The HTML embeds its charts as inline SVG drawn from the report's own ChartSpecs, so the file opens
anywhere without a server or network.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from stockdesk.evaluation.application.charts import missing_charts, report_charts
from stockdesk.evaluation.application.formatting import num, pct
from stockdesk.evaluation.domain.dtos import EvaluationReport
from stockdesk.shared.charts import render_inline_svg
from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.files import write_atomic

FORMATS = {".json": "json", ".html": "html", ".htm": "html"}


def output_format(path: Path) -> str:
    """json or html from the suffix; anything else is a one-line error before any work."""
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise BadRequestException(f"--out must end in .json or .html, got {path.name!r}", code="BAD_OUTPUT")
    return fmt


def templates() -> Environment:
    """The evaluation's report templates (evaluate and track), with the pct and num filters."""
    env = Environment(
        loader=PackageLoader("stockdesk.evaluation.presentation", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(pct=pct, num=num)
    return env


def render_html(report: EvaluationReport) -> str:
    env = templates()
    charts = [
        {"title": c.title, "caption": c.caption, "svg": Markup(render_inline_svg(c))}
        for c in report_charts(report)
    ]
    horizons = [str(h) for h in report.config["horizons"]]
    mode = str(report.config["mode"])
    context: dict[str, Any] = {
        "r": report,
        "mode": mode,
        "charts": charts,
        "missing": missing_charts(report),
        "horizons": horizons,
        "sets": list(report.metrics),
        "experts": {h: (report.metrics.get(mode, {}).get(h, {}) or {}).get("experts", []) for h in horizons},
    }
    return env.get_template("evaluation.html.j2").render(**context)


def write_report(report: EvaluationReport, out: Path) -> Path:
    fmt = output_format(out)
    text = report.model_dump_json(indent=2) if fmt == "json" else render_html(report)
    return write_atomic(out, text)  # never a half-written report
