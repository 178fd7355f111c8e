"""The Analyze area's page routers beside the start page (analyses, batches, sessions, symbols),
registered in app.py as one entry."""

from __future__ import annotations

from stockdesk.entrypoints.web.pages.analyses import build_analyses_router
from stockdesk.entrypoints.web.pages.batches import build_batches_router
from stockdesk.entrypoints.web.pages.sessions import build_sessions_router
from stockdesk.entrypoints.web.pages.symbols import build_symbols_router

ANALYZE_ROUTERS = (build_analyses_router, build_batches_router, build_sessions_router, build_symbols_router)
