"""Briefings over REST: start one (202, computed in the background as a durable job), poll it, read
its script.

POST checks everything first (400 INVALID_TICKERS / BAD_BASE_SCRIPT / INVALID_DATE /
INVALID_MAX_ROUNDS, 404 UNKNOWN_TICKER) and is idempotent on the request: the same request names
the same job, so posting it again serves a finished briefing or resumes an interrupted one. The
job's steps are one per ticker (debate + script) and the refine step. GET .../script answers 409
BRIEFING_NOT_FINISHED while steps remain, 409 BRIEFING_FAILED (naming the ticker) after a failure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field
from starlette.responses import Response

from stockdesk.briefing.application import BriefingJob, BriefingJobs
from stockdesk.briefing.domain.dtos import MAX_TICKERS, BriefingScript
from stockdesk.briefing.presentation.jobs import configured, launch_briefing
from stockdesk.shared.dates import parse_day
from stockdesk.shared.routes import cancel_moved
from stockdesk.shared.tasks.executor import JobExecutor


class BriefingBody(BaseModel):
    date: str = Field(examples=["2024-07-26"], description="YYYY-MM-DD")
    tickers: list[str] = Field(max_length=4 * MAX_TICKERS, examples=[["AAPL", "NVDA", "GOOG"]])
    base_script: Any = Field(
        default=None, description="the opening/theme script {chapter, scripts} (spec 7.4), checked strictly"
    )
    max_rounds: int | None = Field(default=None, ge=1, le=10)


def build_briefing_router(
    get_jobs: Callable[[], BriefingJobs | None], get_executor: Callable[[], JobExecutor]
) -> APIRouter:
    router = APIRouter(prefix="/briefings", tags=["debate"])

    def jobs() -> BriefingJobs:
        return configured(get_jobs())

    @router.post("", response_model=BriefingJob, status_code=202)
    def start(body: BriefingBody, service: BriefingJobs = Depends(jobs)) -> BriefingJob:
        """Check the request now, debate and write as a job; answers the job to poll."""
        return launch_briefing(
            service, get_executor(), parse_day(body.date), body.tickers, body.base_script, body.max_rounds
        )

    @router.post("/{job_id}/cancel", include_in_schema=False)
    def cancel(job_id: str) -> Response:
        """Moved to `POST /api/v1/jobs/{id}/cancel` (307); POSTing the request again resumes."""
        return cancel_moved(job_id)

    @router.get("/{job_id}", response_model=BriefingJob)
    def status(job_id: str, service: BriefingJobs = Depends(jobs)) -> BriefingJob:
        """Progress: each step's status, attempts and error (404 BRIEFING_NOT_FOUND)."""
        return service.status(job_id)

    @router.get("/{job_id}/script", response_model=BriefingScript)
    def script(job_id: str, service: BriefingJobs = Depends(jobs)) -> BriefingScript:
        """The finished script.json (spec 7.4); 409 while it is being written or after a failure."""
        return service.result(job_id).script

    return router
