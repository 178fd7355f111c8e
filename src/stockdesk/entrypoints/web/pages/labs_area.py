"""The lab areas' page routers (evaluation dashboard, strategy lab), registered in app.py as one entry."""

from __future__ import annotations

from stockdesk.entrypoints.web.pages.evaluations import build_evaluations_router
from stockdesk.entrypoints.web.pages.strategy import build_strategy_router

LAB_ROUTERS = (build_evaluations_router, build_strategy_router)
