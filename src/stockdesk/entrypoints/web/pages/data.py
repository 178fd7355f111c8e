"""The data pages: what the store holds (per symbol, and one symbol's detail), file upload, sync runs.

Uploads take the CLI's import path (`data_engineering.presentation.file_import`): the same importer
and import service, all or nothing; the file is kept in a temporary folder inside the app's home
only while it is imported. A sync starts through `launch_sync` (what the REST route calls) and
its page follows the run over SSE, reading the same progress the REST API answers; its Cancel posts
to the general jobs route (`POST /jobs/{id}/cancel?back=...`), and the run's own cancel route
answers 307 there.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import RedirectResponse, StreamingResponse
from starlette.responses import Response

from stockdesk.data_engineering.application import StockDataSummaryDTO
from stockdesk.data_engineering.application.sync_runs import SyncRuns
from stockdesk.data_engineering.domain.exceptions import ImportValidationError, SymbolNotFoundError
from stockdesk.data_engineering.presentation.file_import import FOLDER_KINDS, KINDS, FileImport, import_file
from stockdesk.data_engineering.presentation.sync_jobs import launch_sync
from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.i18n import pick_language
from stockdesk.entrypoints.web.pages.data_view import (
    MARKETS,
    ImportForm,
    SyncForm,
    coverage_row,
    import_outcome,
    latest_figures,
    parse_form_day,
    rejection,
    sync_view,
)
from stockdesk.entrypoints.web.pages.jobs import moved_to_jobs
from stockdesk.shared.dates import parse_day
from stockdesk.shared.errors import BadRequestException, NotFoundException, StockdeskError
from stockdesk.shared.sse import HEADERS, progress_events

INDEX = "data/index.html.j2"
DETAIL = "data/detail.html.j2"
IMPORT = "data/import.html.j2"
SYNC = "data/sync.html.j2"
RUN = "data/run.html.j2"
RECENT_RUNS = 10
MISSING_SHOWN = 50
LONG_GAP_DAYS = 10  # a run of missing trading days longer than this is listed with its dates
CHARTS = ("price", "valuation")  # of research's charts: price, MAs and volume; PE/PB with its median


def safe_name(filename: str | None) -> str:
    """The upload's own file name (importers read meaning from it), reduced to a plain, local name."""
    name = re.sub(r"[^\w.\-]+", "_", Path(filename or "").name).strip("._")
    return name[:120] or "upload"


@contextmanager
def saved_upload(home: Path, upload: UploadFile) -> Iterator[Path]:
    """The upload as a file in a fresh temporary folder under `<home>/uploads`, removed afterwards."""
    root = home / "uploads"
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="import-", dir=root) as folder:
        path = Path(folder) / safe_name(upload.filename)
        with path.open("wb") as out:
            shutil.copyfileobj(upload.file, out, length=1024 * 1024)
        yield path


def build_data_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)
    _coverage_routes(router, deps)
    _import_routes(router, deps)
    _sync_routes(router, deps)
    _symbol_routes(router, deps)  # last: /data/import and /data/sync are not symbols
    return router


def _recent_runs(deps: WebDeps) -> list[Any]:
    return [sync_view(run) for run in deps.container.sync_runs.recent(RECENT_RUNS)]


def _coverage_routes(router: APIRouter, deps: WebDeps) -> None:
    @router.get("/data")
    def coverage(request: Request, q: str = "", market: str = "") -> Response:
        """Every stored symbol with its date ranges; the filter answers htmx with the table only."""
        market = market.lower() if market.lower() in MARKETS else ""
        rows = [coverage_row(r) for r in deps.container.data.coverage.execute(q, market or None)]
        context = {"rows": rows, "q": q, "market": market, "markets": MARKETS, "runs": _recent_runs(deps)}
        return deps.pages.fragment_or_page(request, INDEX, "coverage", context)


def _import_routes(router: APIRouter, deps: WebDeps) -> None:
    """The upload form: a file imported as the CLI does."""

    def import_page(request: Request, fields: ImportForm, status: int = 200, **extra: Any) -> Response:
        context = {"fields": fields, "kinds": KINDS, "outcome": None, "rejected": [], "error": None, **extra}
        return deps.pages.render(request, IMPORT, context, status_code=status)

    @router.get("/data/import")
    def import_form(request: Request) -> Response:
        return import_page(request, ImportForm())

    @router.post("/data/import")
    def upload(
        request: Request,
        file: Annotated[UploadFile | None, File()] = None,
        kind: str = Form(""),
        symbol: str = Form(""),
        layout: str = Form("auto"),
        tz: str = Form(""),
        accession: str = Form(""),
        filing_form: str = Form(""),
        filed: str = Form(""),
        url: str = Form(""),
    ) -> Response:
        """Import the file as the CLI does: its rows per table, or 400 with the rows' problems."""
        fields = ImportForm(kind, symbol, layout or "auto", tz, accession, filing_form, filed, url)
        try:
            if kind not in KINDS:
                raise BadRequestException(
                    f"choose what the file is (one of {', '.join(KINDS)})", code="IMPORT_KIND"
                )
            if file is None or not file.filename:
                raise BadRequestException("choose a file to import", code="FILE_REQUIRED")
            with saved_upload(deps.container.settings.home, file) as path:
                report = import_file(deps.container.data, _request(fields, path))
        except ImportValidationError as exc:
            return import_page(request, fields, exc.http_status, rejected=[rejection(exc, kind)])
        except StockdeskError as exc:
            return import_page(request, fields, exc.http_status, error=exc)
        if report.rejected:
            shown = [rejection(r, kind) for r in report.rejected]
            return import_page(request, fields, 400, rejected=shown, outcome=_partial(report))
        return import_page(request, fields, outcome=import_outcome(report))


def _sync_routes(router: APIRouter, deps: WebDeps) -> None:
    """The sync form and a sync run's live page (its Cancel goes to the jobs route)."""

    def runs() -> SyncRuns:
        return deps.container.sync_runs

    def sync_page(request: Request, fields: SyncForm, error: StockdeskError | None = None) -> Response:
        context = {"fields": fields, "markets": MARKETS, "error": error, "runs": _recent_runs(deps)}
        return deps.pages.render(request, SYNC, context, status_code=error.http_status if error else 200)

    @router.get("/data/sync")
    def sync_form(request: Request) -> Response:
        return sync_page(request, SyncForm(end=date.today().isoformat()))

    @router.post("/data/sync")
    def start_sync(
        request: Request,
        market: str = Form("cn"),
        symbols: str = Form(""),
        start: str = Form(""),
        end: str = Form(""),
    ) -> Response:
        """Queue the sync as a job (what POST /api/v1/data/sync does) and follow it on its page."""
        fields = SyncForm(market, symbols, start, end)
        try:
            run = launch_sync(
                runs(), deps.bounds, market, symbols, parse_form_day(start), parse_form_day(end)
            )
        except StockdeskError as exc:
            return sync_page(request, fields, exc)
        return RedirectResponse(f"/data/sync/{run.run_id}", status_code=303)

    def run_context(run_id: str) -> dict[str, Any]:
        return {"run": sync_view(runs().progress(run_id))}

    @router.get("/data/sync/{run_id}")
    def sync_run(request: Request, run_id: str) -> Response:
        """Each symbol's datasets: live over SSE while it runs, the outcome and every failure after."""
        return deps.pages.render(request, RUN, run_context(run_id))

    @router.get("/data/sync/{run_id}/events")
    def sync_events(request: Request, run_id: str) -> StreamingResponse:
        runs().progress(run_id)  # 404 before the stream starts
        stream = progress_events(
            lambda: sync_view(runs().progress(run_id)),
            lambda view: deps.pages.render_text(request, RUN, "progress", {"run": view}),
            lambda view: not view.live,
            event="progress",
        )
        return StreamingResponse(stream, media_type="text/event-stream", headers=HEADERS)

    @router.post("/data/sync/{run_id}/cancel")
    def cancel_sync(run_id: str) -> Response:
        """Moved to the jobs route (307), which comes back to this run's page."""
        return moved_to_jobs(run_id, "cancel", f"/data/sync/{run_id}")


def _symbol_routes(router: APIRouter, deps: WebDeps) -> None:
    @router.get("/data/{symbol}")
    def symbol_detail(request: Request, symbol: str, as_of: str | None = None) -> Response:
        """`data show` of one symbol, its other datasets, last sync and the trading days it misses;
        as of `as_of` (a bad date is a 400 page), else as of its newest stored bar, not today."""
        asked = parse_day(as_of or None)
        data = deps.container.data
        found = data.coverage.one(symbol)
        bars = found.datasets.get("bars") if found else None
        try:
            summary = data.summary.execute(symbol, asked or (bars.last if bars else None))
        except SymbolNotFoundError:
            summary = None
        if summary is None and found is None:
            raise NotFoundException(
                f"{symbol} is not in the store", code="STOCK_NOT_FOUND", details={"symbol": symbol}
            )
        row = coverage_row(found) if found else None
        found = (
            data.coverage.missing(symbol, MISSING_SHOWN, LONG_GAP_DAYS) if row and row.missing_days else None
        )
        missing, long_gaps = (found.dates or [], found.long_gaps) if found else ([], [])
        charts, failed = _charts(deps, summary)
        context = {
            "summary": summary,
            "figures": latest_figures(summary, pick_language(request)) if summary else None,
            "charts": charts,
            "charts_failed": failed,
            "security": summary.security if summary else None,
            "row": row,
            "missing": missing,
            "long_gaps": long_gaps,
            "long_gap_days": LONG_GAP_DAYS,
            "symbol": symbol.upper(),
            "as_of_asked": asked is not None,
        }
        return deps.pages.render(request, DETAIL, context)


def _charts(
    deps: WebDeps, summary: StockDataSummaryDTO | None
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The price and valuation charts (ChartSpec dicts for charts.js) of the window ending at the
    page's as-of date, from research's one chart module (the session page's charts): nothing after
    it is read. Also, by chart, why one could not be drawn."""
    if summary is None:
        return [], {}
    built = deps.container.research.chart_data.build(summary.security.symbol, summary.as_of, only=CHARTS)
    return [c.model_dump(mode="json") for c in built.charts], built.failed


def _request(fields: ImportForm, path: Path) -> FileImport:
    """The form as the importer's request; folder importers get the upload's temporary folder."""
    return FileImport(
        kind=fields.kind,
        path=path.parent if fields.kind in FOLDER_KINDS else path,
        symbol=fields.symbol.strip() or None,
        layout=fields.layout,
        tz=fields.tz.strip() or None,
        accession=fields.accession.strip() or None,
        form=fields.form.strip() or None,
        filed=parse_form_day(fields.filed),
        url=fields.url.strip() or None,
    )


def _partial(report: Any) -> Any:
    """What a folder import wrote before a rejected group (none for a single uploaded file)."""
    return import_outcome(report) if report.results else None
