"""Batch analyses over REST: POST starts (or resumes) a job, GET polls it, SSE streams it.

The same durable job as `stockdesk batch analyze`: posting the same body again names the same job,
so finished symbols are never analysed twice. Reports go under the server's batch folder (a
request never names a server path); the index and each report are served from there.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fastapi import APIRouter, Depends
from fastapi.responses import FileResponse, HTMLResponse, StreamingResponse
from pydantic import BaseModel, Field

from stockdesk.coordinator.application.batch_analysis import (
    BatchAnalysisConfig,
    BatchAnalysisService,
    BatchRow,
)
from stockdesk.coordinator.presentation.batch_jobs import BatchBody, BatchLauncher
from stockdesk.coordinator.presentation.reports.batch_index import INDEX_NAME
from stockdesk.shared.errors import NotFoundException
from stockdesk.shared.sse import HEADERS, progress_events
from stockdesk.shared.tasks import ENDED_JOB_STATUSES, JobStatus
from stockdesk.shared.tasks.executor import JobExecutor

__all__ = ["BatchBody", "BatchJob", "build_batch_router"]


class BatchJob(BaseModel):
    job_id: str
    status: str
    error: str | None = None
    done: int
    failed: int
    pending: int
    total: int
    rows: list[BatchRow] = Field(default_factory=list, description="ranked by action, then confidence")


def _job(service: BatchAnalysisService, job_id: str, *, rows: bool = False) -> BatchJob:
    job = service.get(job_id)
    counts = service.counts(job_id)
    return BatchJob(
        job_id=job_id, status=job.status.value, error=job.error, done=counts.done, failed=counts.failed,
        pending=counts.pending + counts.running, total=counts.total,
        rows=service.rows(job_id) if rows else [],
    )  # fmt: skip


def build_batch_router(get_launcher: Callable[[], BatchLauncher]) -> APIRouter:
    """The routes over the server's one batch launcher (`BatchLauncher`: service, executor, workers)."""
    router = APIRouter(prefix="/batch/analyses", tags=["batch"])

    def get_service() -> BatchAnalysisService:
        return get_launcher().service()

    def get_jobs() -> JobExecutor:
        return get_launcher().jobs()

    @router.post("", response_model=BatchJob, status_code=202)
    def start(body: BatchBody) -> BatchJob:
        """Start or resume the batch of this body (422 bad body, 413 too many symbols); poll or stream it."""
        launcher = get_launcher()
        return _job(launcher.service(), launcher.launch(body))

    @router.get("/{job_id}", response_model=BatchJob)
    def status(job_id: str, service: BatchAnalysisService = Depends(get_service)) -> BatchJob:
        """Progress and every symbol's row so far (404 BATCH_NOT_FOUND)."""
        return _job(service, job_id, rows=True)

    @router.get(
        "/{job_id}/events",
        response_class=StreamingResponse,
        responses={200: {"content": {"text/event-stream": {}}, "description": "progress as JSON events"}},
    )
    def events(job_id: str, service: BatchAnalysisService = Depends(get_service)) -> StreamingResponse:
        """Server-sent events: the job's counts whenever they change, then `done`."""
        _job(service, job_id)  # 404 now, not inside the stream

        def read() -> BatchJob:
            return _job(service, job_id)

        def finished(state: BatchJob) -> bool:
            return JobStatus(state.status) in ENDED_JOB_STATUSES and not get_jobs().is_active(job_id)

        stream = progress_events(read, lambda s: s.model_dump_json(), finished, event="progress")
        return StreamingResponse(stream, media_type="text/event-stream", headers=HEADERS)

    @router.get(
        "/{job_id}/index",
        response_class=HTMLResponse,
        responses={200: {"content": {"text/html": {}}, "description": "the index page"}},
    )
    def index(job_id: str, service: BatchAnalysisService = Depends(get_service)) -> FileResponse:
        """The batch's index page (written when a run ends; 404 before)."""
        return FileResponse(_file(service, job_id, INDEX_NAME), media_type="text/html")

    @router.get(
        "/{job_id}/reports/{symbol}",
        response_class=HTMLResponse,
        responses={200: {"content": {"text/html": {}}, "description": "the symbol's report"}},
    )
    def report(
        job_id: str, symbol: str, service: BatchAnalysisService = Depends(get_service)
    ) -> FileResponse:
        """One symbol's report (404 REPORT_NOT_FOUND until its analysis is done)."""
        row = next((r for r in _job(service, job_id, rows=True).rows if r.symbol == symbol.upper()), None)
        if row is None or row.report is None:
            raise NotFoundException(f"no report for {symbol} in batch {job_id}", code="REPORT_NOT_FOUND")
        return FileResponse(_file(service, job_id, row.report), media_type="text/html")

    return router


def _file(service: BatchAnalysisService, job_id: str, name: str) -> Path:
    job = service.get(job_id)
    path = Path(BatchAnalysisConfig.model_validate(job.config).out_dir) / Path(name).name
    if not path.is_file():
        raise NotFoundException(f"{path.name} is not written yet", code="REPORT_NOT_FOUND")
    return path
