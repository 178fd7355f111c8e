"""A research session as a file: Markdown or HTML from Jinja2 templates, the whole session as JSON,
the HTML printed to PDF (shared/exports), or Word (reports.word).

The templates only print what reports.view prepared; HTML is autoescaped because expert and
debate text is LLM output and may contain markup, and Markdown escapes the HTML in every value it
prints (`md_text`) for the same reason: a Markdown viewer renders the HTML it finds.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Literal, get_args
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, StrictUndefined

from stockdesk.coordinator.application import ResearchSession
from stockdesk.coordinator.presentation.reports.charts_view import chart_views
from stockdesk.coordinator.presentation.reports.view import build_view
from stockdesk.coordinator.presentation.reports.words import ReportWords, report_language
from stockdesk.shared import charts as shared_charts  # its renderers load matplotlib on first call only
from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.exports import document_bytes, output_format, ready_format
from stockdesk.shared.files import private_dir, write_atomic

ReportFormat = Literal["md", "html", "json"]
FileFormat = Literal["md", "html", "json", "pdf", "docx"]  # what a report file can be
SUFFIXES: dict[str, ReportFormat] = {".md": "md", ".markdown": "md", ".json": "json"}  # and .html/.pdf/.docx
TEMPLATES = {"md": "report.md.j2", "html": "report.html.j2"}


def report_format(path: Path) -> FileFormat:
    """The format a report path asks for, by its suffix (a one-line 400 naming the choices if none)."""
    return output_format(path, SUFFIXES, word=True, code="BAD_REPORT_FORMAT")  # type: ignore[return-value]


def check_out(path: Path) -> FileFormat:
    """`report_format`, and for a PDF the browser that prints it: what a command checks before any work."""
    return ready_format(path, SUFFIXES, word=True, code="BAD_REPORT_FORMAT")  # type: ignore[return-value]


_ENTITY_AMPERSAND = re.compile(r"&(?=#?[0-9A-Za-z]+;)")


def md_text(value: object) -> str:
    """Any value a Markdown report prints, made inert as HTML: news titles, the models' prose and the
    user's names may hold markup, which a Markdown viewer would render (a `<script>`, an `<img
    onerror>`). Every `<` becomes `&lt;`, and an `&` that would start an entity `&amp;`; Markdown
    shows both as written, and nothing else changes (the template's own Markdown stays)."""
    return _ENTITY_AMPERSAND.sub("&amp;", str(value)).replace("<", "&lt;")


def md_cell(value: object) -> str:
    """One Markdown table cell: on one line, and a '|' in the text does not end the cell."""
    return " ".join(str(value).split()).replace("|", "\\|")


@lru_cache(maxsize=len(TEMPLATES))
def report_environment(fmt: str) -> Environment:
    env = Environment(
        loader=PackageLoader("stockdesk.coordinator.presentation.reports", "templates"),
        autoescape=fmt == "html",
        finalize=md_text if fmt == "md" else None,  # Markdown's autoescape: every printed value
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["cell"] = md_cell
    return env


def render_report(
    session: ResearchSession,
    fmt: ReportFormat,
    *,
    images: str | None = None,
    track_record: str | None = None,
    lang: str = "en",
) -> str:
    """The report as text, all of it in `lang` but what the models and the user wrote; `images`: the
    folder (relative to a Markdown report) holding its chart PNGs; `track_record`: the desk's
    one-line live track record (the verdict ledger's), printed under the verdict when given."""
    if fmt == "json":
        return session.model_dump_json(indent=2)
    if fmt not in TEMPLATES:
        choices = ", ".join(get_args(ReportFormat))
        raise BadRequestException(
            f"unknown report format '{fmt}'; choose one of: {choices}", code="BAD_REPORT_FORMAT"
        )
    lang = report_language(lang)
    template = report_environment(fmt).get_template(TEMPLATES[fmt])
    return template.render(
        report=build_view(session, lang),
        images=images,
        track_record=track_record,
        t=ReportWords(lang),
        lang=lang,
    )


def report_bytes(
    session: ResearchSession, fmt: FileFormat, *, track_record: str | None = None, lang: str = "en"
) -> bytes:
    """The report as one file's bytes: Markdown (charts not linked: they need files beside it), HTML,
    JSON, the HTML printed to PDF, or Word with the charts as pictures."""
    if fmt == "docx":
        from stockdesk.coordinator.presentation.reports.word import render_docx  # python-docx on use

        return render_docx(session, track_record=track_record, lang=lang)
    if fmt == "pdf":
        return document_bytes(render_report(session, "html", track_record=track_record, lang=lang), "pdf")
    return render_report(session, fmt, track_record=track_record, lang=lang).encode("utf-8")


def write_report(
    session: ResearchSession, out: Path, *, track_record: str | None = None, lang: str = "en"
) -> list[Path]:
    """Write the report to `out` (format by suffix); the paths written, the report first.

    A Markdown report gets its charts as PNG files in `<stem>_files/` beside it, linked relatively,
    written before the report so it never links a missing image. HTML inlines its charts as SVG, and
    so does the PDF printed from it; Word embeds them as PNG pictures.
    """
    fmt = report_format(out)
    lang = report_language(lang)
    private_dir(out.parent)
    if fmt != "md":
        return [write_atomic(out, report_bytes(session, fmt, track_record=track_record, lang=lang))]
    images: str | None = None
    pictures: list[Path] = []
    drawable = [(c.file, c.drawn) for c in chart_views(session, lang) if c.drawn is not None]
    if drawable:
        folder = out.with_name(f"{out.stem}_files")
        private_dir(folder)
        pictures = [write_atomic(folder / name, shared_charts.render_png(spec)) for name, spec in drawable]
        images = quote(folder.name)
    text = render_report(session, "md", images=images, track_record=track_record, lang=lang)
    write_atomic(out, text.encode("utf-8"))
    return [out, *pictures]
