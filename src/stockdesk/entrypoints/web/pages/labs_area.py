"""The lab areas' page routers (evaluation, track record, paper books, strategy lab), registered in
app.py as one."""

from __future__ import annotations

from stockdesk.entrypoints.web.pages.evaluations import build_evaluations_router
from stockdesk.entrypoints.web.pages.paper import build_paper_router
from stockdesk.entrypoints.web.pages.strategy import build_strategy_router
from stockdesk.entrypoints.web.pages.track import build_track_router

LAB_ROUTERS = (build_evaluations_router, build_track_router, build_paper_router, build_strategy_router)
