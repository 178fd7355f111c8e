"""The settings page: the effective configuration, read-only, and a "Test the model" button.

GET /settings shows what `stockdesk config show` prints, laid out by area with labels and units,
secrets only as set or not set (see `settings_view`). POST /settings/ping is `stockdesk llm ping`
(`run_ping`, the same call) for the router's first alias or one named `alias`: htmx swaps the
answer into the page (a plain form post gets the whole page with it). It spends tokens, so it is a
spending route (`security.UI_SPENDING_ROUTES`): same-origin forms only, and a key beyond loopback.
A failed ping answers the error's own status and code (400 LLM_UNKNOWN_ALIAS for an alias the
router does not have), explained in the page's language.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Form, Request
from starlette.responses import Response

from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.pages.settings_view import PING_HINTS, PingOutcome, settings_view
from stockdesk.llm_platform.application.ping import run_ping
from stockdesk.shared.errors import StockdeskError

SETTINGS = "settings/index.html.j2"


def build_settings_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    def context(ping: PingOutcome | None = None) -> dict[str, Any]:
        container = deps.container
        view = settings_view(container.settings, container.data.market_sources())
        return {"view": view, "ping": ping, "ping_hints": PING_HINTS}

    @router.get("/settings")
    def settings(request: Request) -> Response:
        """The configuration as loaded; builds no LLM provider (a missing key must not hide the page)."""
        return deps.pages.render(request, SETTINGS, context())

    @router.post("/settings/ping")
    def ping(request: Request, alias: str = Form("", max_length=64)) -> Response:
        """One structured round trip, as `stockdesk llm ping`: the reply, or the error and its status."""
        chosen = alias.strip() or None
        status = 200
        try:
            outcome = PingOutcome.answered(chosen, run_ping(deps.container.llm_service, alias=chosen))
        except StockdeskError as exc:
            outcome, status = PingOutcome.failed(chosen, exc), exc.http_status
        return deps.pages.fragment_or_page(request, SETTINGS, "ping", context(outcome), status_code=status)

    return router
