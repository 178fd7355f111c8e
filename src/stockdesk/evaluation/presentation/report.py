"""Write an evaluation report: JSON (the contract), HTML (summary, charts, tables) or that HTML printed
to PDF (shared/exports), atomically.

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
from stockdesk.shared import charts as shared_charts  # its renderers load matplotlib on first call only
from stockdesk.shared.exports import output_format as document_format
from stockdesk.shared.exports import ready_format, write_document
from stockdesk.shared.files import write_atomic

FORMATS = {".json": "json"}  # and .html / .pdf, as every HTML report (shared/exports)


def check_out(path: Path) -> str:
    """`output_format`, and for a PDF the browser that prints it: checked before any work."""
    return ready_format(path, FORMATS)


def output_format(path: Path) -> str:
    """json, html or pdf from the suffix; anything else (Word included) is a one-line error before any
    work."""
    return document_format(path, FORMATS)


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
        {"title": c.title, "caption": c.caption, "svg": Markup(shared_charts.render_inline_svg(c))}
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
    if output_format(out) == "json":
        return write_atomic(out, report.model_dump_json(indent=2))  # never a half-written report
    return write_document(render_html(report), out)
