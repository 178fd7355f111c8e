"""Schedules over REST: list (with the next fire, the last run and each channel's health), add, remove,
and run a day now (as a job). 400 BAD_SCHEDULE_* / UNKNOWN_WATCHLIST / UNKNOWN_CHANNEL /
UNKNOWN_PAPER_BOOK for a bad field, 409 SCHEDULE_EXISTS, 404 SCHEDULE_NOT_FOUND, 409
SCHEDULE_RUN_EXISTS for a day already run."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Depends, Path, Query, Response
from pydantic import BaseModel, Field

from stockdesk.scheduling.application import Fired, ScheduleView, pending_job
from stockdesk.scheduling.container import SchedulingContainer
from stockdesk.scheduling.domain.model import NAME_PATTERN, Language, Mode
from stockdesk.shared.tasks.executor import JobExecutor

ScheduleName = Path(..., pattern=NAME_PATTERN, description="the schedule's name")


class NewSchedule(BaseModel):
    name: str = Field(pattern=NAME_PATTERN)
    watchlist: str = Field(min_length=1, max_length=64)
    at: str = Field(pattern=r"^\d{1,2}:\d{2}$", description="HH:MM in `tz`")
    tz: str = Field(min_length=1, max_length=64, description="IANA time zone, e.g. Asia/Shanghai")
    days: str = Field(default="mon-fri", max_length=40)
    mode: Mode = "rules"
    notify: list[str] = Field(default_factory=list, max_length=20)
    paper: str | None = Field(default=None, max_length=40)
    language: Language = Field(default="en", description="the digest's language")


def build_schedule_router(
    get: Callable[[], SchedulingContainer], get_executor: Callable[[], JobExecutor]
) -> APIRouter:
    router = APIRouter(prefix="/schedules", tags=["schedules"])

    @router.get("", response_model=list[ScheduleView])
    def schedules(container: SchedulingContainer = Depends(get)) -> list[ScheduleView]:
        """Every schedule with its next fire, its last run and the health of each of its channels."""
        return container.schedules.views()

    @router.post("", response_model=ScheduleView, status_code=201)
    def add(body: NewSchedule, container: SchedulingContainer = Depends(get)) -> ScheduleView:
        """Add a schedule (400 for a bad field or an unknown reference, 409 SCHEDULE_EXISTS)."""
        schedule = container.schedules.add(
            body.name, watchlist=body.watchlist, at=body.at, tz=body.tz, days=body.days, mode=body.mode,
            notify=body.notify, paper=body.paper, language=body.language,
        )  # fmt: skip
        return container.schedules.view(schedule.name)

    @router.delete("/{name}", status_code=204)
    def remove(name: str = ScheduleName, container: SchedulingContainer = Depends(get)) -> None:
        """Remove the schedule and its runs' records (404 SCHEDULE_NOT_FOUND)."""
        container.schedules.remove(name)

    @router.post("/{name}/run", response_model=Fired, status_code=202, responses={200: {"model": Fired}})
    def run(
        response: Response,
        name: str = ScheduleName,
        as_of: date | None = Query(default=None, description="the day; default today in the schedule's zone"),
        container: SchedulingContainer = Depends(get),
    ) -> Fired:
        """Claim the day and start its run as a `scheduled_run` job on the server's executor: 202 with
        `Location` the job (GET /api/v1/jobs/{id}: progress; POST /api/v1/jobs/{id}/cancel), the run's
        row at GET /api/v1/schedules. A day without bars in the store is recorded as skipped at once
        (200). 404 SCHEDULE_NOT_FOUND; 409 SCHEDULE_RUN_EXISTS when the day has a run."""
        schedule = container.schedules.get(name)
        day = as_of or datetime.now(ZoneInfo(schedule.tz)).date()
        opened = container.runs.open_now(schedule.name, day)
        job_id = pending_job(opened)
        if job_id is not None:
            container.runs.start_on(get_executor(), job_id)
            response.headers["Location"] = f"/api/v1/jobs/{job_id}"
            note = "started"
        else:
            response.status_code = 200
            note = opened.reason or opened.status.value
        return Fired(schedule=schedule.name, day=day, fired_at=opened.fired_at, run=opened, note=note)

    return router
