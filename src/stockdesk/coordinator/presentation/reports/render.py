"""A research session as a file: Markdown or HTML from Jinja2 templates, or the whole session as JSON.

The templates only print what reports.view prepared; HTML is autoescaped because expert and
debate text is LLM output and may contain markup.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal, get_args

from jinja2 import Environment, PackageLoader, StrictUndefined

from stockdesk.coordinator.application import ResearchSession
from stockdesk.coordinator.presentation.reports.view import build_view
from stockdesk.shared.errors import BadRequestException

ReportFormat = Literal["md", "html", "json"]
SUFFIXES: dict[str, ReportFormat] = {
    ".md": "md",
    ".markdown": "md",
    ".html": "html",
    ".htm": "html",
    ".json": "json",
}
TEMPLATES = {"md": "report.md.j2", "html": "report.html.j2"}


def report_format(path: Path) -> ReportFormat:
    """The format a report path asks for, by its suffix."""
    found = SUFFIXES.get(path.suffix.lower())
    if found is None:
        raise BadRequestException(
            f"cannot tell the report format of '{path.name}': use a .md, .html or .json file",
            code="BAD_REPORT_FORMAT",
        )
    return found


def md_cell(value: object) -> str:
    """One Markdown table cell: on one line, and a '|' in the text does not end the cell."""
    return " ".join(str(value).split()).replace("|", "\\|")


@lru_cache(maxsize=len(TEMPLATES))
def _environment(fmt: str) -> Environment:
    env = Environment(
        loader=PackageLoader("stockdesk.coordinator.presentation.reports", "templates"),
        autoescape=fmt == "html",
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["cell"] = md_cell
    return env


def render_report(session: ResearchSession, fmt: ReportFormat) -> str:
    if fmt == "json":
        return session.model_dump_json(indent=2)
    if fmt not in TEMPLATES:
        choices = ", ".join(get_args(ReportFormat))
        raise BadRequestException(
            f"unknown report format '{fmt}'; choose one of: {choices}", code="BAD_REPORT_FORMAT"
        )
    template = _environment(fmt).get_template(TEMPLATES[fmt])
    return template.render(report=build_view(session))
