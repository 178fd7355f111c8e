"""The desk areas' page routers (watchlists, holdings, portfolio, schedules, data, briefings, jobs,
settings),
registered in app.py as one entry."""

from __future__ import annotations

from stockdesk.entrypoints.web.pages.briefings import build_briefings_router
from stockdesk.entrypoints.web.pages.data import build_data_router
from stockdesk.entrypoints.web.pages.holdings import build_holdings_router
from stockdesk.entrypoints.web.pages.jobs import build_jobs_router
from stockdesk.entrypoints.web.pages.portfolio import build_portfolio_router
from stockdesk.entrypoints.web.pages.schedules import build_schedules_router
from stockdesk.entrypoints.web.pages.settings import build_settings_router
from stockdesk.entrypoints.web.pages.watchlists import build_watchlists_router

DESK_ROUTERS = (
    build_watchlists_router,
    build_holdings_router,
    build_portfolio_router,
    build_schedules_router,
    build_data_router,
    build_briefings_router,
    build_jobs_router,
    build_settings_router,
)
