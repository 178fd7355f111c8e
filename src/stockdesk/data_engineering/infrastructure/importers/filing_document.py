"""A filing's document (HTML) -> clean text pages (`filing_pages`), optionally with its `filings` row.

Pages hold at most `PAGE_CHARS` characters so that a search hit points at a readable stretch of a
300-page 10-K and an LLM prompt can take a page whole. Pages break between paragraphs; a paragraph
longer than a page breaks between lines, then between words. The same document always gives the
same pages, so a rerun rewrites them unchanged. The SEC provider fetches documents and turns them
into pages with the same functions, so imported and fetched filings are stored alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pandas as pd

from stockdesk.data_engineering.domain import frames as F
from stockdesk.data_engineering.domain.exceptions import ImportValidationError, RowProblem
from stockdesk.data_engineering.domain.symbols import normalize_symbol
from stockdesk.data_engineering.infrastructure.importers import ImportGroup
from stockdesk.data_engineering.infrastructure.importers.html_text import decode_html, html_to_text
from stockdesk.data_engineering.infrastructure.importers.yfinance_csv import bare_security
from stockdesk.shared.errors import BadRequestException

PAGE_CHARS = 20_000
PAGE_COLUMNS = F.FILING_PAGE_COLUMNS
_ACCESSION = re.compile(r"^(\d{10})-?(\d{2})-?(\d{6})$")
_SEPARATORS = ("\n\n", "\n", " ")  # preferred page breaks, best first


@dataclass
class FilingDocument:
    """What `read_filing_document` found: the frames to write and the facts to report."""

    group: ImportGroup
    symbol: str
    accession_number: str
    pages: int
    characters: int


def normalize_accession(raw: str) -> str:
    """`0000320193-24-000123` (EDGAR's form; the 18 digits without dashes are accepted)."""
    match = _ACCESSION.match((raw or "").strip())
    if not match:
        raise BadRequestException(
            f"'{raw}' is not an accession number (e.g. 0000320193-24-000123)", code="INVALID_ACCESSION"
        )
    return "-".join(match.groups())


def split_pages(text: str, max_chars: int = PAGE_CHARS) -> list[str]:
    """Consecutive pages of at most `max_chars`, broken at the best separator available."""
    return [page for page in _split(text.strip(), max_chars, 0) if page]


def _split(text: str, max_chars: int, level: int) -> list[str]:
    if len(text) <= max_chars:
        return [text]
    if level == len(_SEPARATORS):
        return [text[i : i + max_chars] for i in range(0, len(text), max_chars)]
    separator = _SEPARATORS[level]
    pages: list[str] = []
    current = ""
    for part in text.split(separator):
        if len(part) > max_chars:  # cannot fit even alone: close the page, split it finer
            if current:
                pages.append(current)
            pieces = _split(part, max_chars, level + 1)
            pages.extend(pieces[:-1])
            current = pieces[-1]
        elif not current:
            current = part
        elif len(current) + len(separator) + len(part) <= max_chars:
            current += separator + part
        else:
            pages.append(current)
            current = part
    pages.append(current)
    return [page.strip() for page in pages]


def pages_frame(symbol: str, accession_number: str, text: str) -> pd.DataFrame:
    """The `filing_pages` rows of one document (page_no from 1)."""
    pages = split_pages(text)
    return pd.DataFrame(
        {
            "symbol": [symbol] * len(pages),
            "accession_number": [accession_number] * len(pages),
            "page_no": list(range(1, len(pages) + 1)),
            "text": pages,
        },
        columns=PAGE_COLUMNS,
    )


def filing_row(
    symbol: str, accession_number: str, form: str, filed: date, url: str | None = None
) -> pd.DataFrame:
    """The `filings` row; columns not known here are left out so an upsert keeps stored values."""
    row = {"symbol": symbol, "accession_number": accession_number, "form": form.strip().upper()}
    row["filed_date"] = pd.Timestamp(filed)
    if url:
        row["url"] = url
    return pd.DataFrame([row])


def read_filing_document(
    path: Path,
    symbol: str,
    accession: str,
    *,
    form: str | None = None,
    filed: date | None = None,
    url: str | None = None,
) -> FilingDocument:
    """Pages of one HTML document, plus the filing row when both its form and filing date are given."""
    symbol = normalize_symbol(symbol)
    accession_number = normalize_accession(accession)
    if (form is None) != (filed is None):
        raise BadRequestException("give --form and --filed together (they make the filing row)")
    if url and form is None:
        raise BadRequestException("--url is stored on the filing row: give --form and --filed with it")
    if not path.is_file():
        raise ImportValidationError(str(path), [RowProblem(row=None, reason="no such file")])
    text = html_to_text(decode_html(path.read_bytes()))
    if not text:
        raise ImportValidationError(path.name, [RowProblem(row=None, reason="no text in the document")])
    pages = pages_frame(symbol, accession_number, text)
    frames = {"securities": bare_security(symbol), "filing_pages": pages}
    if form is not None and filed is not None:
        frames["filings"] = filing_row(symbol, accession_number, form, filed, url)
    return FilingDocument(
        group=ImportGroup(source=f"{path.name} ({symbol} {accession_number})", frames=frames),
        symbol=symbol,
        accession_number=accession_number,
        pages=len(frames["filing_pages"]),
        characters=len(text),
    )
