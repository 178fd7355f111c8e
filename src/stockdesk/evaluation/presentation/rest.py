"""Evaluation over REST: start one (202, computed in the background), poll it, read its report.

POST is idempotent on the config: the same config names the same durable job, so posting it again
resumes that job (finished points are never recomputed) instead of starting over.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field

from stockdesk.evaluation.application.evaluation_service import EvaluationService
from stockdesk.evaluation.domain.dtos import (
    ALL_EXPERTS,
    EvaluationConfig,
    EvaluationJob,
    EvaluationMode,
    EvaluationReport,
    evaluation_config,
)
from stockdesk.evaluation.presentation.jobs import launch_evaluation
from stockdesk.evaluation.presentation.report import render_html
from stockdesk.shared.access.bounds import RequestBounds
from stockdesk.shared.dates import IsoDay
from stockdesk.shared.exports import DOCUMENT_RESPONSES, document_bytes, download
from stockdesk.shared.routes import cancel_moved
from stockdesk.shared.symbol_text import SymbolText
from stockdesk.shared.tasks.executor import JobExecutor


class EvaluationBody(BaseModel):
    symbols: list[SymbolText] = Field(min_length=1, max_length=2000, examples=[["600519.SH", "601318.SH"]])
    start: IsoDay
    end: IsoDay
    every: int = Field(default=20, ge=1, le=250)
    horizons: list[Annotated[int, Field(ge=1, le=500)]] = Field(
        default_factory=lambda: [5, 20, 60], min_length=1, max_length=10
    )
    mode: EvaluationMode = EvaluationMode.RULES
    experts: list[str] = Field(default_factory=lambda: list(ALL_EXPERTS), min_length=1)
    benchmark: str | None = None
    slippage: float = Field(default=0.0005, ge=0.0, lt=0.05)
    capital: float | None = Field(
        default=1_000_000.0, gt=0.0, description="follow-the-verdict portfolio: A-shares in lots of 100"
    )
    reflection: bool = Field(
        default=False,
        description="full mode only: each point without and with lessons from earlier points, compared",
    )

    def config(self) -> EvaluationConfig:
        return evaluation_config(self.model_dump())


def build_evaluation_router(
    get_service: Callable[[], EvaluationService],
    get_jobs: Callable[[], JobExecutor],
    bounds: RequestBounds | None = None,
) -> APIRouter:
    router = APIRouter(prefix="/evaluations", tags=["evaluation"])
    limits = bounds or RequestBounds()

    @router.post("", response_model=EvaluationJob, status_code=202)
    def start(body: EvaluationBody, service: EvaluationService = Depends(get_service)) -> EvaluationJob:
        """Check bounds, symbols and window now (422, 404 UNKNOWN_SYMBOL, 400 EMPTY_WINDOW); run as a job."""
        return launch_evaluation(service, get_jobs(), limits, body.config())

    @router.post("/{job_id}/cancel", include_in_schema=False)
    def cancel(job_id: str) -> Response:
        """Moved to `POST /api/v1/jobs/{id}/cancel` (307); POSTing the config again resumes."""
        return cancel_moved(job_id)

    @router.get("", response_model=list[EvaluationJob])
    def evaluations(
        limit: int = Query(default=20, ge=1, le=200), service: EvaluationService = Depends(get_service)
    ) -> list[EvaluationJob]:
        """The newest evaluations first, with their progress."""
        return service.list(limit)

    @router.get("/{job_id}", response_model=EvaluationJob)
    def status(job_id: str, service: EvaluationService = Depends(get_service)) -> EvaluationJob:
        """Progress: done, failed and pending points (404 EVALUATION_NOT_FOUND)."""
        return service.status(job_id)

    @router.get("/{job_id}/report", response_model=EvaluationReport, responses=DOCUMENT_RESPONSES)
    def report(
        job_id: str,
        format: Literal["json", "html", "pdf"] = Query(default="json"),
        service: EvaluationService = Depends(get_service),
    ) -> EvaluationReport | Response:
        """The scored report (409 EVALUATION_NOT_FINISHED while points remain); `format=html` for the
        page, `format=pdf` for the page printed (a file named after the job; 503 PDF_UNAVAILABLE
        without Chromium)."""
        scored = service.report(job_id)
        if format == "json":
            return scored
        if format == "html":
            return HTMLResponse(render_html(scored))
        return download(document_bytes(render_html(scored), "pdf"), "pdf", f"evaluation-{job_id[:12]}.pdf")

    return router
