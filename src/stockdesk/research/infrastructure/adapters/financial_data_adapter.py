"""IFinancialDataPort over data_engineering's use cases."""

from __future__ import annotations

from datetime import date

from stockdesk.data_engineering.application import GetFinanceForTickerUseCase, GetStockBasicInfoUseCase
from stockdesk.research.domain.dtos.financial import AuditFinanceRecordInput
from stockdesk.research.domain.ports.financial import IFinancialDataPort

PERIODS_NEEDED = 12  # 8 shown + 4 for their year-earlier comparisons


class FinancialDataAdapter(IFinancialDataPort):
    def __init__(self, basic_info: GetStockBasicInfoUseCase, finance: GetFinanceForTickerUseCase):
        self._basic_info = basic_info
        self._finance = finance

    def get_stock_info(self, symbol: str) -> tuple[str, str, str] | None:
        security = self._basic_info.execute(symbol)
        if security is None:
            return None
        return security.symbol, security.name or security.symbol, security.industry or ""

    def get_finance_records(self, symbol: str, as_of: date) -> list[AuditFinanceRecordInput]:
        reports = self._finance.execute(symbol, as_of=as_of, limit=PERIODS_NEEDED)
        fields = set(AuditFinanceRecordInput.model_fields)  # by name: net_profit, report_type come too
        return [
            AuditFinanceRecordInput.model_validate({k: v for k, v in r.model_dump().items() if k in fields})
            for r in reports
        ]
