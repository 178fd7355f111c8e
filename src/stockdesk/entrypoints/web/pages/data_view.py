"""What the data pages show, as text: coverage cells, a symbol's latest figures (labelled, with units,
by the one figures table `shared.figures`), an import's outcome or rejection, a sync's progress.

Formatting only: the numbers come from the data context's use cases, the import report and the
sync run; nothing here decides what is stored or imported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from stockdesk.data_engineering.application import StockDataSummaryDTO, currency_of
from stockdesk.data_engineering.application.sync_runs import SymbolSync, SyncProgress
from stockdesk.data_engineering.domain.coverage import COVERAGE_DATASETS, DatasetRange, SymbolCoverage
from stockdesk.data_engineering.domain.exceptions import ImportValidationError
from stockdesk.data_engineering.presentation.file_import import HEADER_LINES, FileImportReport
from stockdesk.entrypoints.web.pages.form_text import stamp
from stockdesk.entrypoints.web.pages.jobs_view import JobPanel
from stockdesk.shared.dates import parse_day
from stockdesk.shared.figures import ShownFigure, show_figure

MARKETS = ("cn", "us", "hk", "tw")
SHOWN_PROBLEMS = 20
# a sync symbol's or dataset's state -> the badge colour class it borrows
BADGE = {
    "ok": "done", "up-to-date": "done", "written": "done", "failed": "failed", "partial": "partial",
    "running": "running", "pending": "queued", "not-run": "skipped", "empty": "skipped",
}  # fmt: skip


def span(rng: DatasetRange | None) -> str:
    """`2023-05-08 – 2024-06-28` (or one date), empty without data."""
    if rng is None or rng.rows == 0 or rng.first is None:
        return ""
    return rng.first.isoformat() if rng.first == rng.last else f"{rng.first.isoformat()} – {rng.last}"


@dataclass(frozen=True)
class CoverageCell:
    span: str
    rows: int

    @property
    def ends(self) -> list[str]:
        """The first and last date (one date when they are the same): each is kept on one line."""
        return self.span.split(" – ") if self.span else []


@dataclass(frozen=True)
class CoverageRow:
    symbol: str
    name: str
    market: str
    cells: dict[str, CoverageCell]
    synced_through: str
    last_failure: str
    missing_days: int | None


def coverage_row(row: SymbolCoverage) -> CoverageRow:
    cells = {d: CoverageCell(span(row.datasets.get(d)), row.datasets[d].rows if d in row.datasets else 0)
             for d in COVERAGE_DATASETS}  # fmt: skip
    return CoverageRow(
        symbol=row.symbol,
        name=row.name or "",
        market=row.market or "",
        cells=cells,
        synced_through=row.synced_through.isoformat() if row.synced_through else "",
        last_failure=stamp(row.last_sync_failure),
        missing_days=row.missing_days,
    )


# ---- one symbol's latest figures -----------------------------------------------------------------
# (figure key, the stored field) per card; the store's units (data_engineering.domain.frames)
BAR_FIGURES = (("close", "close"), ("open", "open"), ("high", "high"), ("low", "low"),
               ("pct_chg", "pct_chg"), ("volume", "volume"), ("amount", "amount"))  # fmt: skip
VALUATION_FIGURES = (("pe_ttm", "pe_ttm"), ("pb", "pb"), ("ps_ttm", "ps_ttm"), ("dv_ratio", "dv_ratio"),
                     ("market_cap", "total_mv"), ("turnover_rate", "turnover_rate"))  # fmt: skip
REPORT_FIGURES = (("eps", "eps"), ("bps", "bps"), ("roe", "roe"), ("gross_margin", "grossprofit_margin"),
                  ("net_margin", "netprofit_margin"), ("debt_to_assets", "debt_to_assets"),
                  ("revenue", "revenue"), ("net_profit", "net_profit"))  # fmt: skip


@dataclass(frozen=True)
class LatestFigures:
    """The newest bar's, valuation's and report's figures as of the page's date, each labelled."""

    bar: list[ShownFigure]
    valuation: list[ShownFigure]
    report: list[ShownFigure]


def latest_figures(summary: StockDataSummaryDTO, lang: str) -> LatestFigures:
    """Prices and amounts in the security's currency (its market's when the row has none)."""
    currency = summary.security.currency or currency_of(summary.security.symbol)

    def shown(row: Any, fields: tuple[tuple[str, str], ...]) -> list[ShownFigure]:
        return [show_figure(key, getattr(row, name), lang, currency) for key, name in fields] if row else []

    return LatestFigures(
        bar=shown(summary.latest_bar, BAR_FIGURES),
        valuation=shown(summary.latest_valuation, VALUATION_FIGURES),
        report=shown(summary.latest_financial, REPORT_FIGURES),
    )


# ---- upload import -------------------------------------------------------------------------------
@dataclass
class ImportForm:
    """The upload form's fields as typed (shown again with the answer)."""

    kind: str = "yfinance-csv"
    symbol: str = ""
    layout: str = "auto"
    tz: str = ""
    accession: str = ""
    form: str = ""
    filed: str = ""
    url: str = ""


@dataclass(frozen=True)
class Problem:
    line: int | None
    row: int | None
    reason: str


@dataclass
class Rejection:
    """Why a file was refused (nothing of it was written): its source and the first row problems."""

    source: str
    message: str
    problems: list[Problem] = field(default_factory=list)
    more: int = 0


def rejection(exc: ImportValidationError, kind: str) -> Rejection:
    """The problems with the file's line numbers (data row + header lines; importers that count lines
    themselves say so in `line`)."""
    raw: list[dict[str, Any]] = list((exc.details or {}).get("problems", []))
    header = HEADER_LINES.get(kind)
    problems = []
    for item in raw[:SHOWN_PROBLEMS]:
        row = item.get("row")
        line = item.get("line") or (row + header if row and header else None)
        problems.append(Problem(line=line, row=row, reason=" ".join(str(item.get("reason", "")).split())))
    return Rejection(exc.source, exc.message, problems, max(0, len(raw) - SHOWN_PROBLEMS))


def fact_key(name: str) -> str:
    """`skipped (no content)` -> `skipped_no_content`: the i18n key of an importer's fact."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


@dataclass(frozen=True)
class ImportOutcome:
    title: str
    tables: list[tuple[str, int, int]]  # (table, rows written, new rows)
    facts: list[tuple[str, str, str]]  # (i18n key, the importer's own name, value)
    derived_rows: int
    filing_row_missing: bool


def import_outcome(report: FileImportReport) -> ImportOutcome:
    facts = [
        (fact_key(name), name, "" if value is None else str(value)) for name, value in report.facts.items()
    ]
    return ImportOutcome(
        title=report.title,
        tables=[(table, written, new) for table, (written, new) in report.rows().items()],
        facts=facts,
        derived_rows=report.derived_rows,
        filing_row_missing=report.facts.get("filing row") == "missing",
    )


# ---- sync ------------------------------------------------------------------------------------------
@dataclass
class SyncForm:
    market: str = "cn"
    symbols: str = ""
    start: str = ""
    end: str = ""


@dataclass(frozen=True)
class DatasetCell:
    dataset: str
    status: str  # written | empty | up-to-date | failed | running | pending
    rows: int
    provider: str


@dataclass(frozen=True)
class SymbolView:
    symbol: str
    state: str
    badge: str
    cells: list[DatasetCell]
    failures: list[tuple[str, str, str]]  # (dataset, provider, reason)
    error: str | None


@dataclass(frozen=True)
class SyncView:
    run_id: str
    market: str
    window: str
    state: str
    done: int
    total: int
    live: bool
    derived_valuations: int
    error: str | None
    created: str
    symbols: list[SymbolView]

    @property
    def panel(self) -> JobPanel:
        """The run page's job panel: symbols done of the run's symbols. A sync does not resume (a
        new one skips what is up to date), so a stopped run offers nothing."""
        return JobPanel(
            id=self.run_id, kind="sync", state=self.state, live=self.live,
            done=self.done, total=self.total, settled=self.done, resumable=False,
        )  # fmt: skip


def _cells(symbol: SymbolSync, datasets: list[str]) -> list[DatasetCell]:
    """One cell per dataset the run fetches (a REST run may have asked for 5-minute bars)."""
    outcomes = {o.dataset: o for o in symbol.outcomes}
    cells = []
    for dataset in datasets:
        found = outcomes.get(dataset)
        if found is not None:
            cells.append(DatasetCell(dataset, found.status, found.rows, found.provider or ""))
        elif symbol.state == "running" and symbol.dataset == dataset:
            cells.append(DatasetCell(dataset, "running", 0, ""))
        else:
            cells.append(
                DatasetCell(dataset, "pending" if symbol.state in ("pending", "running") else "", 0, "")
            )
    return cells


def sync_view(progress: SyncProgress) -> SyncView:
    symbols = [
        SymbolView(
            symbol=s.symbol,
            state=s.state,
            badge=BADGE.get(s.state, s.state),
            cells=_cells(s, progress.datasets),
            failures=[(f.dataset, f.provider, f.reason) for f in s.failures],
            error=s.error,
        )
        for s in progress.symbols
    ]
    return SyncView(
        run_id=progress.run_id,
        market=progress.market.lower(),
        window=f"{progress.start.isoformat()} – {progress.end.isoformat()}",
        state=progress.state,
        done=progress.done,
        total=progress.total,
        live=not progress.finished,
        derived_valuations=progress.derived_valuations,
        error=progress.error,
        created=stamp(progress.created_at),
        symbols=symbols,
    )


def parse_form_day(text: str) -> date | None:
    """A date input's value (empty: None); a malformed one is a 400 INVALID_DATE."""
    return parse_day(text.strip() or None)
