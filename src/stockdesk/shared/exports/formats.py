"""Which file a report's `--out` asks for, by its suffix, and writing an HTML report as HTML or PDF.

Every command that writes an HTML report (analyze, report, evaluate, track, strategy show, the
batch index) asks `output_format` what its path means and hands its HTML to `write_document`: a
`.pdf` is the same report printed (shared/exports/pdf.py). Word is the analysis report's only
(coordinator/presentation/reports/word.py); asked of another report, it is a one-line 400.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from starlette.responses import Response

from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.exports.pdf import find_chromium, html_to_pdf
from stockdesk.shared.files import write_atomic

DocumentFormat = Literal["html", "pdf", "docx"]
DOCUMENT_SUFFIXES: dict[str, DocumentFormat] = {
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
    ".docx": "docx",
}
MEDIA_TYPES = {
    "md": "text/markdown; charset=utf-8",
    "json": "application/json; charset=utf-8",
    "html": "text/html; charset=utf-8",
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}
# A REST route that answers JSON, or its report as a page or a PDF: those forms, for its OpenAPI entry.
DOCUMENT_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "content": {"text/html": {}, "application/pdf": {}},
        "description": "The report: JSON by default; `format=html` the page, `format=pdf` the page printed",
    }
}
WORD_ONLY = "Word export is for analysis reports; use .pdf or .html"


def output_format(
    path: Path, own: Mapping[str, str] | None = None, *, word: bool = False, code: str = "BAD_OUTPUT"
) -> str:
    """The format `path` asks for by its suffix: one of the report's `own` (.json, .md), html, pdf, or
    docx where the report has a Word form (`word`). Anything else is one 400 line naming the choices,
    raised before any work is done."""
    own = own or {}
    suffix = path.suffix.lower()
    found = own.get(suffix) or DOCUMENT_SUFFIXES.get(suffix)
    if found == "docx" and not word:
        raise BadRequestException(WORD_ONLY, code="WORD_ANALYSIS_ONLY")
    if found is None:
        named: dict[str, str] = {}  # the first suffix of each format, in the report's order
        for known, kind in [*own.items(), *DOCUMENT_SUFFIXES.items()]:
            if kind != "docx" or word:
                named.setdefault(kind, known)
        choices = list(named.values())
        listed = ", ".join(choices[:-1]) + f" or {choices[-1]}"
        raise BadRequestException(f"cannot tell the report format of {path.name!r}: use {listed}", code=code)
    return found


def ready_format(
    path: Path, own: Mapping[str, str] | None = None, *, word: bool = False, code: str = "BAD_OUTPUT"
) -> str:
    """`output_format`, and for a PDF the browser that prints it: a command checks its `--out` with
    this before any work, so neither a bad suffix nor a missing Chromium is found after an hour's run."""
    found = output_format(path, own, word=word, code=code)
    if found == "pdf":
        find_chromium()
    return found


def document_bytes(html: str, fmt: str) -> bytes:
    """An HTML report as the bytes of `fmt`: the page itself, or printed to PDF."""
    if fmt == "pdf":
        return html_to_pdf(html)
    if fmt == "html":
        return html.encode("utf-8")
    raise BadRequestException(WORD_ONLY, code="WORD_ANALYSIS_ONLY")


def write_document(html: str, out: Path) -> Path:
    """An HTML report written as `out`'s suffix asks (.html as is, .pdf printed), atomically: a failed
    print leaves no file and no earlier one half replaced."""
    return write_atomic(out, document_bytes(html, output_format(out)))


def download(data: bytes | str, fmt: str, filename: str, *, inline: bool = False) -> Response:
    """A report as a file the browser saves under `filename` (or shows, `inline`), with its media type."""
    return Response(
        data,
        media_type=MEDIA_TYPES.get(fmt, "application/octet-stream"),
        headers={
            "Content-Disposition": f'{"inline" if inline else "attachment"}; filename="{filename}"',
            "X-Content-Type-Options": "nosniff",
        },
    )
