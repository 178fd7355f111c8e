"""GET /api/v1/research/valuation-model: the valuation modeler over HTTP, its parts injected by FastAPI."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter, Depends, Query

from stockdesk.research.application.dtos import ValuationModelerResultDTO
from stockdesk.research.application.snapshot.valuation_snapshot_builder import ValuationSnapshotBuilder
from stockdesk.research.application.stock_data import StockData
from stockdesk.research.application.valuation_modeler_service import ValuationModelerService
from stockdesk.research.domain.ports.valuation import IValuationModelerAgentPort
from stockdesk.shared.dates import IsoDay
from stockdesk.shared.symbol_text import SYMBOL_PATTERN


def build_valuation_router(
    get_data: Callable[[], StockData],
    get_snapshot_builder: Callable[[], ValuationSnapshotBuilder],
    get_agent: Callable[[], IValuationModelerAgentPort],
) -> APIRouter:
    router = APIRouter(tags=["research"])

    @router.get("/research/valuation-model", response_model=ValuationModelerResultDTO)
    def valuation_model(
        symbol: str = Query(min_length=1, pattern=SYMBOL_PATTERN, description="e.g. 600519.SH"),
        as_of: IsoDay | None = Query(None, description="analysis date; default today"),
        data: StockData = Depends(get_data),
        builder: ValuationSnapshotBuilder = Depends(get_snapshot_builder),
        agent: IValuationModelerAgentPort = Depends(get_agent),
    ) -> ValuationModelerResultDTO:
        """Valuation verdict plus `input` (prompt), `output` (raw model text), `valuation_indicators`."""
        return ValuationModelerService(data, builder, agent).run(symbol, as_of)

    return router
