"""`GET /symbols/suggest?q=`: the symbol field's autocomplete (JSON `[{symbol, label}]`, at most 20)."""

from __future__ import annotations

from fastapi import APIRouter, Query

from stockdesk.data_engineering.application import Suggestion, suggest
from stockdesk.entrypoints.web.deps import WebDeps


def build_symbols_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get("/symbols/suggest", response_model=list[Suggestion])
    def suggestions(q: str = Query(default="", max_length=40)) -> list[Suggestion]:
        return suggest(deps.container.data.securities.execute(), q)

    return router
