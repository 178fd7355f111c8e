"""The start page: the Analyze form, the analyses running now and the latest sessions."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.i18n import pick_language
from stockdesk.entrypoints.web.pages.analyses_view import (
    DEBATE_CHOICES,
    EXPERT_CHOICES,
    AnalysisForm,
    progress_view,
)
from stockdesk.shared.errors import StockdeskError

RECENT = 5


def home_context(
    deps: WebDeps, form: AnalysisForm, error: StockdeskError | None = None, lang: str = "en"
) -> dict[str, Any]:
    """Everything home.html.j2 shows; `error` is a refused form's reason, shown above the form."""
    return {
        "form": form,
        "error": error,
        "expert_choices": EXPERT_CHOICES,
        "debate_choices": DEBATE_CHOICES,
        "active": [progress_view(p, lang) for p in deps.container.analyses.active()],
        "recent": deps.container.coordinator.service.list(limit=RECENT).items,
        "state_of": lambda s: deps.container.analyses.state_of(s.id, s.status),
    }


def build_home_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get("/")
    def home(request: Request, symbol: str = Query("", max_length=20)) -> Response:
        """The analysis form; `symbol` fills it in (the data page's "Analyze" link)."""
        context = home_context(deps, AnalysisForm(symbol=symbol), lang=pick_language(request))
        return deps.pages.render(request, "home.html.j2", context)

    return router
