"""The jobs page: every job this server runs or has queued, linked to its page, with a Cancel button.

The list is the executor's (`JobExecutor.active()`); the page polls itself every two seconds. A
cancel goes through the job kinds (`shared.tasks.kinds`): the job's own service where it keeps
live state (analyses, syncs), else the executor.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.pages.jobs_view import job_rows
from stockdesk.entrypoints.web.templating import is_htmx

JOBS = "jobs/index.html.j2"


def build_jobs_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    def context() -> dict[str, Any]:
        return {"jobs": job_rows(deps.jobs().active())}

    @router.get("/jobs")
    def jobs(request: Request) -> Response:
        """The whole page, or (the page's own polling, an htmx request) the table alone."""
        return deps.pages.fragment_or_page(request, JOBS, "jobs", context())

    @router.post("/jobs/{job_id}/cancel")
    def cancel(request: Request, job_id: str) -> Response:
        """Ask the job to stop at its next step, as the REST route does (404 when it is not active)."""
        deps.container.job_kinds.cancel(job_id)
        if is_htmx(request):
            return deps.pages.render(request, JOBS, context(), block="jobs")
        return RedirectResponse("/jobs", status_code=303)

    return router
