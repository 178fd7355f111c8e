"""The jobs page: every job this server runs or has queued, with a Cancel button, and the stopped jobs
that may resume, with a Resume button; each linked to its page. The job history (/jobs/history,
linked from it) lists the ended jobs of the task store, newest change first, by kind and status.

The active list is the executor's (`JobExecutor.active()`), the stopped one the job kinds'
(`JobKinds.stopped()`); the page polls itself every two seconds. Cancel and Resume go through the
job kinds (`shared.tasks.kinds`), as the REST routes do; they are also what the Cancel and Resume
buttons of every job page (analysis, sync, evaluation, strategy run, briefing) post to, with `back`
naming the page to come back to. The per-kind routes those buttons used answer 307 here (`moved_to_jobs`).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.pages.jobs_view import (
    HISTORY_PAGE_SIZE,
    HISTORY_STATUS_NAMES,
    KNOWN_KINDS,
    HistoryFilters,
    history_rows,
    job_rows,
    own_page,
    stopped_rows,
)
from stockdesk.entrypoints.web.templating import is_htmx
from stockdesk.shared.errors import BadRequestException, NotFoundException

JOBS = "jobs/index.html.j2"
HISTORY = "jobs/history.html.j2"


def moved_to_jobs(job_id: str, action: str, page: str) -> RedirectResponse:
    """A job page's old Cancel or Resume route: 307 (a POST stays a POST) to the jobs route, which
    comes back to `page`."""
    return RedirectResponse(f"/jobs/{job_id}/{action}?back={page}", status_code=307)


def build_jobs_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    def context() -> dict[str, Any]:
        kinds = deps.container.job_kinds
        return {
            "jobs": job_rows(deps.jobs().active()),
            "stopped": stopped_rows(kinds.stopped()),
            "known_kinds": KNOWN_KINDS,
        }

    def answer(request: Request) -> Response:
        if is_htmx(request):
            return deps.pages.render(request, JOBS, context(), block="jobs")
        return RedirectResponse("/jobs", status_code=303)

    @router.get("/jobs")
    def jobs(request: Request) -> Response:
        """The whole page, or (the page's own polling, an htmx request) the tables alone."""
        return deps.pages.fragment_or_page(request, JOBS, "jobs", context())

    @router.get("/jobs/history")
    def history(
        request: Request,
        kind: str = Query("", max_length=64),
        status: str = Query("", max_length=32),
        page: str = Query("", max_length=12),
    ) -> Response:
        """Ended jobs of every kind, a page at a time; a bad filter or page is a 400 that says, in
        the page's language, what to choose instead (the filter form stays, as typed)."""
        base = {"known_kinds": KNOWN_KINDS, "statuses": HISTORY_STATUS_NAMES, "error": None}
        try:
            filters = HistoryFilters.parse(kind, status, page)
            found = deps.container.job_kinds.history(**filters.query())
        except BadRequestException as exc:
            typed = HistoryFilters(kind.strip(), status.strip())
            context = base | {"error": exc, "filters": typed, "kinds": [], "rows": [], "total": 0}
            return deps.pages.render(request, HISTORY, context, status_code=exc.http_status)
        last = max(1, -(-found.total // HISTORY_PAGE_SIZE))
        context = base | {
            "filters": filters,
            "kinds": found.kinds,
            "rows": history_rows(found.jobs),
            "total": found.total,
            "first": (filters.page - 1) * HISTORY_PAGE_SIZE + 1,
            "pages": last,
            "previous_url": filters.url(min(filters.page - 1, last)) if filters.page > 1 else None,
            "next_url": filters.url(filters.page + 1) if filters.page < last else None,
            "first_url": filters.url(1),
        }
        return deps.pages.render(request, HISTORY, context)

    @router.post("/jobs/{job_id}/cancel")
    def cancel(request: Request, job_id: str, back: str | None = None) -> Response:
        """Ask the job to stop at its next step, as the REST route does (404 when it is not active).
        From the job's own page (`back`), a job that has just ended is left as it is and the page
        shows that."""
        page = own_page(job_id, back)
        if page is None:
            deps.container.job_kinds.cancel(job_id)
            return answer(request)
        deps.container.job_kinds.stop_if_active(job_id)
        return RedirectResponse(page, status_code=303)

    @router.post("/jobs/{job_id}/resume")
    def resume(request: Request, job_id: str, back: str | None = None) -> Response:
        """Run a stopped job again, as the REST route does (404; 409 not resumable here, running or
        done). From the job's own page (`back`), an id no kind knows goes back to that page, which
        answers its own 404."""
        page = own_page(job_id, back)
        try:
            deps.container.job_kinds.resume(job_id)
        except NotFoundException:
            if page is None:
                raise
        return answer(request) if page is None else RedirectResponse(page, status_code=303)

    return router
