"""Port of the chart data: the experts' inputs turned into chart series (computed in code, no LLM)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import date

from stockdesk.research.domain.dtos.financial import AuditFinanceRecordInput
from stockdesk.research.domain.dtos.technical import PriceBarInput
from stockdesk.research.domain.dtos.valuation import ValuationDailyInput
from stockdesk.shared.charts import ChartSpec


class IChartSeriesBuilder(ABC):
    """Each method gives None when there is nothing to draw (no bars, no valuations, no reports)."""

    @abstractmethod
    def price(self, symbol: str, bars: list[PriceBarInput], as_of: date) -> ChartSpec | None:
        """Forward-adjusted close with MA20/60/120 and volume, the last trading year up to `as_of`."""

    @abstractmethod
    def valuation(self, symbol: str, dailies: list[ValuationDailyInput], as_of: date) -> ChartSpec | None:
        """PE(TTM) and PB over the 3-year percentile window, with 10/50/90 percentiles and today."""

    @abstractmethod
    def financials(
        self, symbol: str, records: list[AuditFinanceRecordInput], as_of: date
    ) -> ChartSpec | None:
        """Revenue and profit YoY growth, ROE and gross margin per report period."""
