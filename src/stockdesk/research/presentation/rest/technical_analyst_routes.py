"""GET /api/v1/research/technical-analysis: the technical analyst over HTTP, its parts injected."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter, Depends, Query

from stockdesk.research.application.dtos import TechnicalAnalystResultDTO
from stockdesk.research.application.snapshot.technical_snapshot_builder import TechnicalSnapshotBuilder
from stockdesk.research.application.stock_data import StockData
from stockdesk.research.application.technical_analyst_service import TechnicalAnalystService
from stockdesk.research.domain.ports.technical import ITechnicalAnalystAgentPort
from stockdesk.shared.dates import IsoDay
from stockdesk.shared.symbol_text import SYMBOL_PATTERN


def build_technical_router(
    get_data: Callable[[], StockData],
    get_snapshot_builder: Callable[[], TechnicalSnapshotBuilder],
    get_agent: Callable[[], ITechnicalAnalystAgentPort],
) -> APIRouter:
    router = APIRouter(tags=["research"])

    @router.get("/research/technical-analysis", response_model=TechnicalAnalystResultDTO)
    def technical_analysis(
        symbol: str = Query(min_length=1, pattern=SYMBOL_PATTERN, description="e.g. 600519.SH"),
        as_of: IsoDay | None = Query(None, description="analysis date; default today"),
        data: StockData = Depends(get_data),
        builder: TechnicalSnapshotBuilder = Depends(get_snapshot_builder),
        agent: ITechnicalAnalystAgentPort = Depends(get_agent),
    ) -> TechnicalAnalystResultDTO:
        """Signal and key levels plus `input`, `output` and `technical_indicators`."""
        return TechnicalAnalystService(data, builder, agent).run(symbol, as_of)

    return router
