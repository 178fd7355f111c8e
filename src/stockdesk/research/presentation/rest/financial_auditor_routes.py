"""GET /api/v1/research/financial-audit: the financial auditor over HTTP, its parts injected."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter, Depends, Query

from stockdesk.research.application.dtos import FinancialAuditorResultDTO
from stockdesk.research.application.financial_auditor_service import FinancialAuditorService
from stockdesk.research.application.snapshot.financial_snapshot_builder import FinancialSnapshotBuilder
from stockdesk.research.application.stock_data import StockData
from stockdesk.research.domain.ports.financial import IFinancialAuditorAgentPort
from stockdesk.shared.dates import IsoDay
from stockdesk.shared.symbol_text import SYMBOL_PATTERN


def build_financial_router(
    get_data: Callable[[], StockData],
    get_snapshot_builder: Callable[[], FinancialSnapshotBuilder],
    get_agent: Callable[[], IFinancialAuditorAgentPort],
) -> APIRouter:
    router = APIRouter(tags=["research"])

    @router.get("/research/financial-audit", response_model=FinancialAuditorResultDTO)
    def financial_audit(
        symbol: str = Query(min_length=1, pattern=SYMBOL_PATTERN, description="e.g. 600519.SH"),
        as_of: IsoDay | None = Query(None, description="analysis date; default today"),
        data: StockData = Depends(get_data),
        builder: FinancialSnapshotBuilder = Depends(get_snapshot_builder),
        agent: IFinancialAuditorAgentPort = Depends(get_agent),
    ) -> FinancialAuditorResultDTO:
        """Score, signal and five dimensions plus `input`, `output` and `financial_indicators`."""
        return FinancialAuditorService(data, builder, agent).run(symbol, as_of)

    return router
