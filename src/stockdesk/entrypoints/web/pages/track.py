"""The Track record page: the verdict ledger's matured entries scored (TrackService, the same report
as `stockdesk track` and GET /api/v1/track), with the reliability diagram and the equity curve."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.pages.track_view import track_view
from stockdesk.evaluation.presentation.cli import parse_horizons
from stockdesk.evaluation.presentation.track_cli import track_config

MODES = ("rules", "experts", "full")


def build_track_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get("/track")
    def track(
        request: Request,
        horizons: str = Query("5,20,60", max_length=100),
        mode: str = Query("", max_length=16),
    ) -> Response:
        """Bad horizons or mode: the error page (400) naming the field."""
        config = track_config(horizons=parse_horizons(horizons), mode=mode.strip() or None)
        report = deps.container.evaluation.track.run(config, entries=False)
        context = {"v": track_view(report), "horizons": horizons, "mode": mode, "modes": MODES}
        return deps.pages.render(request, "track/index.html.j2", context)

    return router
