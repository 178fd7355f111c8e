"""The jobs page: every job this server runs or has queued, linked to its page, with a Cancel button.

The list is the executor's (`JobExecutor.active()`); the page polls itself every two seconds. A
cancel goes to the job's own service where it keeps live state (analyses, syncs), else to the
executor (briefings, evaluations and strategy runs read their state from the executor and store).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.pages.jobs_view import job_rows
from stockdesk.entrypoints.web.templating import is_htmx
from stockdesk.shared.errors import NotFoundException

JOBS = "jobs/index.html.j2"


def build_jobs_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    def context() -> dict[str, Any]:
        return {"jobs": job_rows(deps.jobs().active())}

    @router.get("/jobs")
    def jobs(request: Request) -> Response:
        """The whole page, or (the page's own polling, an htmx request) the table alone."""
        return deps.pages.fragment_or_page(request, JOBS, "jobs", context())

    def cancel_by_kind(kind: str) -> Callable[[str], object]:
        container = deps.container
        if kind == "analysis":
            return container.analyses.cancel
        if kind == "sync":
            return container.sync_runs.cancel
        return lambda job_id: deps.jobs().cancel(job_id, "cancelled by the user")

    @router.post("/jobs/{job_id}/cancel")
    def cancel(request: Request, job_id: str) -> Response:
        """Ask the job to stop at its next step (404 when it is not active here)."""
        found = deps.jobs().find(job_id)
        if found is None:
            raise NotFoundException(f"no active job {job_id}", code="JOB_NOT_FOUND")
        cancel_by_kind(found.kind)(job_id)
        if is_htmx(request):
            return deps.pages.render(request, JOBS, context(), block="jobs")
        return RedirectResponse("/jobs", status_code=303)

    return router
