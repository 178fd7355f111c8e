"""The track record over REST: GET /track (the same JSON as `stockdesk track --json`) and
GET /track/verify (200 with ok true or false and the first bad entry: a broken chain is an answer
about the ledger, not a failed request)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from fastapi import APIRouter, Depends, Query
from fastapi.responses import HTMLResponse, Response

from stockdesk.evaluation.application.track_service import TrackService
from stockdesk.evaluation.domain.track import ChainStatus, TrackReport
from stockdesk.evaluation.presentation.cli import parse_horizons
from stockdesk.evaluation.presentation.track_cli import track_config
from stockdesk.evaluation.presentation.track_report import render_track_html
from stockdesk.shared.exports import DOCUMENT_RESPONSES, document_bytes, download

HORIZON = r"(?:[1-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|250)"
HORIZONS = rf"^{HORIZON}(?:,{HORIZON})*$"  # trading days 1..250, comma-separated: the schema says it


def build_track_router(get_service: Callable[[], TrackService]) -> APIRouter:
    router = APIRouter(prefix="/track", tags=["track record"])

    @router.get("", response_model=TrackReport, responses=DOCUMENT_RESPONSES)
    def track(
        horizons: str = Query(
            default="5,20,60", max_length=100, pattern=HORIZONS, description="comma-separated trading days"
        ),
        mode: Literal["rules", "experts", "full"] | None = Query(default=None, description="only this mode"),
        benchmark: str | None = Query(default=None, max_length=32, description="a stored symbol"),
        format: Literal["json", "html", "pdf"] = Query(
            default="json", description="json (the contract), html (the report) or pdf (it printed)"
        ),
        service: TrackService = Depends(get_service),
    ) -> TrackReport | Response:
        """Every ledger entry scored like evaluate's points (400 BAD_REQUEST, 404 UNKNOWN_SYMBOL);
        `format=html` or `pdf` for the report (503 PDF_UNAVAILABLE without Chromium)."""
        config = track_config(
            horizons=parse_horizons(horizons),
            mode=mode,
            benchmark=benchmark.strip().upper() if benchmark else None,
        )
        report = service.run(config)
        if format == "json":
            return report
        if format == "html":
            return HTMLResponse(render_track_html(report))
        return download(document_bytes(render_track_html(report), "pdf"), "pdf", "track-record.pdf")

    @router.get("/verify", response_model=ChainStatus)
    def verify(service: TrackService = Depends(get_service)) -> ChainStatus:
        """Recompute the ledger's hash chain: ok, or the first edited or missing entry."""
        return service.verify()

    return router
