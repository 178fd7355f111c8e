"""The Schedules pages: every schedule (when, what, its last run, its channels' health) and one
schedule's runs, read from the scheduling context as `schedule list` and `schedule runs` do; a Run now
form; and the runs' reports, served from `<home>/reports/schedules/<name>/<day>/`.

Run now claims the day and opens its `scheduled_run` job in the request (a day already run is a 409
shown on the page, in its language), then runs the job on the server's job executor and sends the
browser to the jobs page, which follows it and can cancel it: a run takes seconds to minutes, longer
than a request should (the REST route runs it in the request). A day without bars in the store ends
at the claim as skipped, and the page shows it.

The report route answers only a strictly named file (the schedule's name pattern, an ISO date, a
`[A-Za-z0-9._-]+.html` file name) whose resolved path is in that run's folder; anything else, a
symlink out of it included, is the 404 page. The reports are our own HTML (charts inlined as SVG, no
script), served so that nothing in them may run or load.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from pathlib import Path as FilePath
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Form, Path, Request
from fastapi.responses import FileResponse, RedirectResponse
from starlette.responses import Response

from stockdesk.entrypoints.scheduling import scheduling_of
from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.pages.schedules_view import page_context, schedule_row
from stockdesk.scheduling.application import pending_job
from stockdesk.scheduling.container import SchedulingContainer
from stockdesk.scheduling.domain.model import NAME_RE
from stockdesk.shared.dates import parse_day
from stockdesk.shared.errors import NotFoundException, StockdeskError

INDEX = "schedules/index.html.j2"
SCHEDULE = "schedules/schedule.html.j2"
DAY_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
FILE_RE = re.compile(r"^[A-Za-z0-9._-]+\.html$")
REPORT_HEADERS = {  # our own HTML report: nothing in it may run or load; only the UI may frame it
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "frame-ancestors 'self'; base-uri 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


def _no_report() -> NotFoundException:
    return NotFoundException("there is no such report", code="NOT_FOUND")


def report_path(root: FilePath, name: str, day: str, file: str) -> FilePath:
    """The report file `file` of `name`'s run on `day` under `root` (<home>/reports/schedules), or a
    404: each part strictly checked, and the resolved file (symlinks followed) directly in the
    resolved folder of that run, itself in the resolved root."""
    if not (NAME_RE.match(name) and DAY_RE.match(day) and FILE_RE.match(file)) or ".." in file:
        raise _no_report()
    try:
        date.fromisoformat(day)
    except ValueError:
        raise _no_report() from None
    base = root.resolve()
    folder = (root / name / day).resolve()
    target = (folder / file).resolve()
    if folder.parent.parent != base or target.parent != folder or not target.is_file():
        raise _no_report()
    return target


def build_schedules_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    def scheduling() -> SchedulingContainer:
        return scheduling_of(deps.container)

    def schedule_page(request: Request, name: str, status: int = 200, **extra: object) -> Response:
        view = scheduling().schedules.view(name)
        runs = scheduling().runs.runs(view.schedule.name, limit=60)
        context = page_context(view, runs, error=None, typed=None) | extra
        return deps.pages.render(request, SCHEDULE, context, status_code=status)

    @router.get("/schedules")
    def schedules(request: Request) -> Response:
        rows = [schedule_row(v) for v in scheduling().schedules.views()]
        return deps.pages.render(request, INDEX, {"schedules": rows})

    @router.get("/schedules/jobs/{job_id}")
    def job(job_id: str = Path(..., max_length=64)) -> Response:
        """A `scheduled_run` job's page (the jobs pages link here): its run's row on the schedule's page."""
        run = scheduling().runs.run_of_job(job_id)
        return RedirectResponse(f"/schedules/{run.schedule}#run-{run.day.isoformat()}", status_code=303)

    @router.get("/schedules/{name}")
    def schedule(request: Request, name: str = Path(..., max_length=40)) -> Response:
        """An unknown schedule: the error page (404)."""
        return schedule_page(request, name)

    @router.post("/schedules/{name}/run")
    def run_now(
        request: Request, name: str = Path(..., max_length=40), day: str = Form("", max_length=32)
    ) -> Response:
        """Run the schedule's day (empty: today in its zone) on the job executor; the jobs page follows
        it. A bad date (400 INVALID_DATE) or a day already run (409 SCHEDULE_RUN_EXISTS) comes back on
        the schedule's page, nothing started; an unknown schedule is the 404 page."""
        runs = scheduling().runs
        schedule = scheduling().schedules.get(name)
        try:
            chosen = (
                parse_day(day.strip(), "date") if day.strip() else datetime.now(ZoneInfo(schedule.tz)).date()
            )
            run = runs.open_now(schedule.name, chosen)
        except StockdeskError as exc:
            return schedule_page(request, schedule.name, status=exc.http_status, error=exc, typed=day)
        job_id = pending_job(run)
        if job_id is None:  # skipped at once: no job to follow
            return RedirectResponse(f"/schedules/{schedule.name}#run-{run.day.isoformat()}", status_code=303)
        runs.start_on(deps.jobs(), job_id)
        return RedirectResponse("/jobs", status_code=303)

    @router.get("/schedules/{name}/{day}/")
    def report_index(name: str, day: str) -> Response:
        return _report(name, day, "index.html")

    @router.get("/schedules/{name}/{day}/{file}")
    def report(name: str, day: str, file: str) -> Response:
        """One file of a run's reports (the batch index, a symbol's report); anything else is 404."""
        return _report(name, day, file)

    def _report(name: str, day: str, file: str) -> Response:
        root = deps.container.settings.home / "reports" / "schedules"
        path = report_path(root, name, day, file)
        return FileResponse(path, media_type="text/html; charset=utf-8", headers=REPORT_HEADERS)

    return router
