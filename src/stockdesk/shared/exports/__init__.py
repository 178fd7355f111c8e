"""Reports as files people pass around: any HTML report as PDF (printed by headless Chromium), the
analysis report as Word; the `--out` suffix and the web's download buttons choose.

`formats` decides what a path asks for and writes an HTML report as HTML or PDF; `pdf` prints;
`word` builds .docx documents (python-docx is imported only by what builds one).
"""

from __future__ import annotations

from stockdesk.shared.exports.formats import (
    DOCUMENT_RESPONSES,
    DOCUMENT_SUFFIXES,
    MEDIA_TYPES,
    WORD_ONLY,
    DocumentFormat,
    document_bytes,
    download,
    output_format,
    ready_format,
    write_document,
)
from stockdesk.shared.exports.pdf import (
    PdfPrintError,
    PdfUnavailableError,
    chromium_path,
    find_chromium,
    html_to_pdf,
)

__all__ = [
    "DOCUMENT_RESPONSES",
    "DOCUMENT_SUFFIXES",
    "MEDIA_TYPES",
    "WORD_ONLY",
    "DocumentFormat",
    "PdfPrintError",
    "PdfUnavailableError",
    "chromium_path",
    "document_bytes",
    "download",
    "find_chromium",
    "html_to_pdf",
    "output_format",
    "ready_format",
    "write_document",
]
