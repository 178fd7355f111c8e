"""Import one file (or one folder of a folder importer): the one path `stockdesk data import ...` and the
web UI's upload both take, so the two cannot differ in what they accept or write.

Each importer reads the file into groups of canonical frames; each group is validated and written in
one transaction by the import service (all or nothing: a rejected group writes nothing and carries
every row problem). Folder importers (Tushare CSV, SEC JSON) import their groups independently; the
single-file importers (news, 5-minute bars, filing documents) raise their rejection.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from stockdesk.data_engineering.application.derived_valuations import DerivedValuationService
from stockdesk.data_engineering.application.import_service import ImportResult
from stockdesk.data_engineering.container import DataEngineeringContainer
from stockdesk.data_engineering.domain.exceptions import ImportValidationError
from stockdesk.data_engineering.infrastructure.importers import ImportGroup
from stockdesk.data_engineering.infrastructure.importers.filing_document import read_filing_document
from stockdesk.data_engineering.infrastructure.importers.intraday_csv import read_intraday_csv
from stockdesk.data_engineering.infrastructure.importers.news_csv import read_news_csv
from stockdesk.data_engineering.infrastructure.importers.sec_json import scan_sec_folder
from stockdesk.data_engineering.infrastructure.importers.tushare_csv import read_tushare_folder
from stockdesk.data_engineering.infrastructure.importers.yfinance_csv import read_yfinance_csv
from stockdesk.shared.errors import BadRequestException

FOLDER_KINDS = ("tushare-csv", "sec")  # the importer reads a folder (an upload is put in one)
FILE_KINDS = ("yfinance-csv", "intraday-csv", "news-csv", "filing-doc")
KINDS = (*FOLDER_KINDS, *FILE_KINDS)
NEEDS_SYMBOL = frozenset(FILE_KINDS)
HEADER_LINES = {"tushare-csv": 1, "yfinance-csv": 1}  # data row r is line r + 1 (news/intraday say lines)
Step = Callable[[str], None]


@dataclass(frozen=True)
class FileImport:
    """What to import: the importer (`kind`), the file or folder, and the options that importer takes."""

    kind: str
    path: Path
    symbol: str | None = None
    layout: str = "auto"  # intraday-csv: auto, yfinance or akshare
    tz: str | None = None  # intraday-csv: zone of naive timestamps
    accession: str | None = None  # filing-doc
    form: str | None = None
    filed: date | None = None
    url: str | None = None


@dataclass
class FileImportReport:
    """What was written (rows and new rows per table, per group), what was rejected, and the facts the
    importer reports (news: rows read, duplicates collapsed, ...)."""

    kind: str
    title: str
    results: list[ImportResult] = field(default_factory=list)
    rejected: list[ImportValidationError] = field(default_factory=list)
    facts: dict[str, object] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    derived_symbols: list[str] = field(default_factory=list)
    derived_rows: int = 0

    def rows(self) -> dict[str, tuple[int, int]]:
        """(rows written, new rows) per table over every imported group."""
        totals: dict[str, tuple[int, int]] = {}
        for result in self.results:
            for table, count in result.rows.items():
                written, new = totals.get(table, (0, 0))
                totals[table] = (written + count, new + result.new_rows.get(table, 0))
        return totals


def import_groups(
    container: DataEngineeringContainer,
    groups: Iterable[ImportGroup],
    before: Step | None = None,
    after: Step | None = None,
) -> tuple[list[ImportResult], list[ImportValidationError]]:
    """Import each group in its own transaction; a rejected group does not stop the others."""
    results: list[ImportResult] = []
    rejected: list[ImportValidationError] = []
    for group in groups:
        if before:
            before(group.source)
        try:
            results.append(container.import_service.import_frames(group.source, group.frames))
        except ImportValidationError as exc:
            rejected.append(exc)
        if after:
            after(group.source)
    return results, rejected


def refresh_derived(
    container: DataEngineeringContainer, groups: list[ImportGroup], results: list[ImportResult]
) -> tuple[list[str], int]:
    """Recompute derived valuations of the symbols just imported: (symbols, rows written)."""
    done = {r.source for r in results}
    symbols = sorted(
        {
            str(symbol)
            for group in groups
            if group.source in done
            for frame in group.frames.values()
            if "symbol" in frame.columns
            for symbol in frame["symbol"].dropna().unique()
        }
    )
    if not symbols:
        return [], 0
    return symbols, DerivedValuationService(container.repository).refresh(symbols)


def import_file(
    container: DataEngineeringContainer,
    request: FileImport,
    before: Step | None = None,
    after: Step | None = None,
) -> FileImportReport:
    """Read and import `request.path` with its kind's importer (see the module docstring)."""
    kind = request.kind
    if kind not in KINDS:
        known = ", ".join(KINDS)
        raise BadRequestException(f"unknown import kind {kind!r} (one of {known})", code="IMPORT_KIND")
    if kind in NEEDS_SYMBOL and not (request.symbol or "").strip():
        raise BadRequestException(f"{kind} needs the symbol the file is for", code="SYMBOL_REQUIRED")
    if kind in ("tushare-csv", "yfinance-csv", "sec"):
        return _grouped(container, request, before, after)
    if kind == "news-csv":
        return _news(container, request)
    if kind == "intraday-csv":
        return _intraday(container, request)
    return _filing(container, request)


def _grouped(
    container: DataEngineeringContainer, request: FileImport, before: Step | None, after: Step | None
) -> FileImportReport:
    unreadable: list[ImportValidationError] = []
    if request.kind == "tushare-csv":
        groups = read_tushare_folder(request.path)
    elif request.kind == "sec":
        groups, unreadable = scan_sec_folder(request.path)
    else:
        groups = read_yfinance_csv(request.path, request.symbol or "")
    results, rejected = import_groups(container, groups, before, after)
    report = FileImportReport(request.kind, request.path.name, results, unreadable + rejected)
    if request.kind != "tushare-csv":  # Tushare exports carry reported valuations
        report.derived_symbols, report.derived_rows = refresh_derived(container, groups, results)
    return report


def _news(container: DataEngineeringContainer, request: FileImport) -> FileImportReport:
    symbol = request.symbol or ""
    parsed = read_news_csv(request.path, symbol)
    result = container.import_service.import_frames(parsed.group.source, parsed.group.frames)
    new, written = result.new_rows.get("news", 0), result.rows.get("news", 0)
    facts: dict[str, object] = {
        "rows read": parsed.stats.rows_read,
        "imported": new,
        "already stored": written - new,
        "undated": parsed.stats.undated,
        "skipped (no content)": parsed.stats.skipped_no_content,
        "duplicates collapsed": parsed.stats.duplicates_collapsed,
        "headlines without text": parsed.stats.without_text,
    }
    title = f"news {request.path.name} ({parsed.stats.layout} layout) for {symbol.upper()}"
    return FileImportReport(request.kind, title, [result], facts=facts)


def _intraday(container: DataEngineeringContainer, request: FileImport) -> FileImportReport:
    parsed = read_intraday_csv(request.path, request.symbol or "", request.layout, request.tz)
    result = container.intraday_import_service.import_file(parsed)
    facts: dict[str, object] = {
        "layout": result.layout,
        "time zone": result.time_zone,
        "rows read": result.rows_read,
        "new bars": result.new,
        "changed bars": result.changed,
        "unchanged bars": result.unchanged,
        "trading days": result.trading_days,
        "first bar": result.first_bar.isoformat() if result.first_bar else None,
        "last bar": result.last_bar.isoformat() if result.last_bar else None,
    }
    written = ImportResult(
        source=result.source,
        rows={"bars_5m": result.new + result.changed},
        new_rows={"bars_5m": result.new},
    )
    title = f"5-minute bars {request.path.name} for {result.symbol}"
    return FileImportReport(request.kind, title, [written], facts=facts)


def _filing(container: DataEngineeringContainer, request: FileImport) -> FileImportReport:
    document = read_filing_document(
        request.path,
        request.symbol or "",
        request.accession or "",
        form=request.form,
        filed=request.filed,
        url=request.url,
    )
    result = container.import_service.import_frames(document.group.source, document.group.frames)
    known = any(
        f.accession_number == document.accession_number
        for f in container.repository.get_filings(document.symbol, date.max)
    )
    facts: dict[str, object] = {
        "pages": document.pages,
        "characters": document.characters,
        "new pages": result.new_rows.get("filing_pages", 0),
        "filing row": "written" if "filings" in result.rows else "stored" if known else "missing",
    }
    title = f"filing {document.symbol} {document.accession_number} from {request.path.name}"
    report = FileImportReport(request.kind, title, [result], facts=facts)
    if not known:
        report.notes.append(
            "no filing row for this accession: the pages are not searchable until one exists "
            "(pass --form and --filed, or import the company's SEC submissions)"
        )
    return report
