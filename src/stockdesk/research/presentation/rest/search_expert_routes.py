"""GET /api/v1/research/macro-intelligence and /catalyst-detective: the two search-driven experts."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter, Depends, Query

from stockdesk.research.application.catalyst_detective_service import CatalystDetectiveService
from stockdesk.research.application.dtos import CatalystDetectiveResultDTO, MacroIntelligenceResultDTO
from stockdesk.research.application.macro_intelligence_service import MacroIntelligenceService
from stockdesk.research.application.search_data import SearchDataAdapter
from stockdesk.research.application.snapshot.search_snapshot_builder import SearchSnapshotBuilder
from stockdesk.research.domain.ports.soft_intel import (
    ICatalystDetectiveAgentPort,
    IMacroIntelligenceAgentPort,
)
from stockdesk.shared.dates import IsoDay
from stockdesk.shared.symbol_text import SYMBOL_PATTERN

SYMBOL = Query(min_length=1, pattern=SYMBOL_PATTERN, description="e.g. 600519.SH or AAPL")
AS_OF = Query(None, description="analysis date; default today. Nothing published later is searched.")


def build_macro_router(
    get_data: Callable[[], SearchDataAdapter],
    get_snapshot_builder: Callable[[], SearchSnapshotBuilder],
    get_agent: Callable[[], IMacroIntelligenceAgentPort],
) -> APIRouter:
    router = APIRouter(tags=["research"])

    @router.get("/research/macro-intelligence", response_model=MacroIntelligenceResultDTO)
    def macro_intelligence(
        symbol: str = SYMBOL,
        as_of: IsoDay | None = AS_OF,
        data: SearchDataAdapter = Depends(get_data),
        builder: SearchSnapshotBuilder = Depends(get_snapshot_builder),
        agent: IMacroIntelligenceAgentPort = Depends(get_agent),
    ) -> MacroIntelligenceResultDTO:
        """Macro environment plus `input`, `output` and `macro_indicators` (the search context sent)."""
        return MacroIntelligenceService(data, builder, agent).run(symbol, as_of)

    return router


def build_catalyst_router(
    get_data: Callable[[], SearchDataAdapter],
    get_snapshot_builder: Callable[[], SearchSnapshotBuilder],
    get_agent: Callable[[], ICatalystDetectiveAgentPort],
) -> APIRouter:
    router = APIRouter(tags=["research"])

    @router.get("/research/catalyst-detective", response_model=CatalystDetectiveResultDTO)
    def catalyst_detective(
        symbol: str = SYMBOL,
        as_of: IsoDay | None = AS_OF,
        data: SearchDataAdapter = Depends(get_data),
        builder: SearchSnapshotBuilder = Depends(get_snapshot_builder),
        agent: ICatalystDetectiveAgentPort = Depends(get_agent),
    ) -> CatalystDetectiveResultDTO:
        """Catalysts plus `input`, `output` and `catalyst_indicators` (the search context sent)."""
        return CatalystDetectiveService(data, builder, agent).run(symbol, as_of)

    return router
