"""Stored research sessions: the filtered list, one session's page and files, retry, and compare.

Everything is read through ResearchCoordinatorService (the REST session routes' service); the
session page shows the same ReportView as the Markdown/HTML report, with interactive charts.
"""

from __future__ import annotations

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from stockdesk.coordinator.presentation.reports.compare import compare_sessions
from stockdesk.coordinator.presentation.reports.render import FileFormat, report_bytes, report_language
from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.i18n import pick_language
from stockdesk.entrypoints.web.pages.sessions_view import (
    ACTIONS,
    DOWNLOADS,
    PAGE_SIZE,
    STATUSES,
    SessionFilters,
    session_page,
)
from stockdesk.entrypoints.web.pages.track_view import headline
from stockdesk.shared.errors import BadRequestException, NotFoundException
from stockdesk.shared.exports import download

# The report is our own HTML (charts inlined as SVG, no script): in the view's frame nothing of it may
# run or load, and only the UI's own pages may frame it.
FRAMED_REPORT = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "frame-ancestors 'self'"
}


def _two(a: str, b: str, pick: list[str]) -> tuple[str, str]:
    """The two sessions to compare: `a` and `b`, or exactly two ticked in the list (`pick`)."""
    chosen = [a.strip(), b.strip()] if a.strip() and b.strip() else [p.strip() for p in pick if p.strip()]
    if len(chosen) != 2:
        raise BadRequestException(
            f"pick exactly two sessions to compare ({len(chosen)} picked)",
            code="PICK_TWO",
            details={"count": len(chosen)},
        )
    return chosen[0], chosen[1]


def build_sessions_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)
    service = lambda: deps.container.coordinator.service  # noqa: E731 (built on first use)

    @router.get("/sessions")
    def sessions(
        request: Request,
        symbol: str = Query("", max_length=20),
        action: str = Query("", max_length=8),
        status: str = Query("", max_length=16),
        since: str = Query("", max_length=20),
        offset: int = Query(0, ge=0, le=1_000_000_000),
    ) -> Response:
        filters = SessionFilters.parse(symbol, action, status, since, offset)
        page = service().list(**filters.query())
        context = {
            "filters": filters,
            "page": page,
            "actions": ACTIONS,
            "statuses": STATUSES,
            "state_of": lambda s: deps.container.analyses.state_of(s.id, s.status),
            "previous_url": filters.page_url(max(0, offset - PAGE_SIZE)) if offset > 0 else None,
            "next_url": filters.page_url(offset + PAGE_SIZE) if offset + PAGE_SIZE < page.total else None,
        }
        return deps.pages.render(request, "sessions/list.html.j2", context)

    @router.get("/sessions/compare")
    def compare(
        request: Request,
        a: str = Query("", max_length=64),
        b: str = Query("", max_length=64),
        pick: list[str] = Query(default_factory=list, max_length=200),
    ) -> Response:
        """Side by side, earlier session first; 400 for two symbols or not exactly two sessions."""
        first, second = _two(a, b, pick)
        comparison = compare_sessions(service().get(first), service().get(second), pick_language(request))
        return deps.pages.render(request, "sessions/compare.html.j2", {"c": comparison})

    @router.get("/sessions/{session_id}")
    def session(request: Request, session_id: str) -> Response:
        """The whole session; one still running is followed on its progress page instead."""
        progress = deps.container.analyses.progress(session_id)
        if not progress.finished:
            return RedirectResponse(f"/analyses/{session_id}", status_code=303)
        found = service().get(session_id)
        view = session_page(found, progress.state, pick_language(request))
        line = None
        if found.verdict:  # the desk's record, live verdicts only, worded by the page
            scores, retrospective, h = deps.container.evaluation.track.headline_scores()
            line = headline(scores.get("all") or {}, str(h), retrospective)
        context = {"s": view, "id": session_id, "track_record": line}
        return deps.pages.render(request, "sessions/session.html.j2", context)

    @router.get("/sessions/{session_id}/report")
    def report_view(request: Request, session_id: str) -> Response:
        """The HTML report read in the browser, framed in the UI with its download buttons."""
        found = service().get(session_id)
        context = {"id": session_id, "symbol": found.symbol, "downloads": DOWNLOADS}
        return deps.pages.render(request, "sessions/report.html.j2", context)

    @router.get("/sessions/{session_id}/report.{fmt}")
    def report_file(
        request: Request, session_id: str, fmt: str, inline: bool = False, lang: str = Query("", max_length=8)
    ) -> Response:
        """The report as a file (Markdown, self-contained HTML, that HTML printed to PDF, Word, or the
        whole session as JSON) in `lang` (the page's language when not given); `inline` (HTML only):
        shown in the report view's frame instead of downloaded."""
        if fmt not in DOWNLOADS:
            choices = ", ".join(DOWNLOADS)
            raise NotFoundException(f"no report format '{fmt}': use one of {choices}", code="NOT_FOUND")
        worded = report_language(lang) if lang else pick_language(request)
        session = service().get(session_id)
        chosen: FileFormat = fmt  # type: ignore[assignment]  (checked against DOWNLOADS above)
        name = f"{session.symbol}-{session.as_of or 'latest'}-{session.id[:8]}.{fmt}"
        shown = inline and fmt == "html"
        response = download(report_bytes(session, chosen, lang=worded), fmt, name, inline=shown)
        if shown:
            response.headers.update(FRAMED_REPORT)
        return response

    @router.post("/sessions/{session_id}/retry")
    def retry(session_id: str) -> Response:
        """Rerun the failed parts as a new session (a job), then follow it on its progress page."""
        started = deps.container.analyses.retry(session_id)
        return RedirectResponse(f"/analyses/{started.session_id}", status_code=303)

    return router
