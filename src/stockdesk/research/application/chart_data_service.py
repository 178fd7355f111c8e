"""ChartDataService: the research charts of one symbol as of a day, from the experts' own data.

Each chart is built on its own: one that fails (or has no data) never takes the others with it.
The failures are returned by name so the caller can record them; nothing here calls an LLM.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from datetime import date

from pydantic import BaseModel, Field

from stockdesk.research.application.chart_series import ChartSeriesBuilder
from stockdesk.research.application.inputs import require_found, require_symbol
from stockdesk.research.application.stock_data import StockData
from stockdesk.shared.charts import ChartSpec
from stockdesk.shared.errors import one_line

logger = logging.getLogger(__name__)


class ChartSet(BaseModel):
    charts: list[ChartSpec] = Field(default_factory=list, description="price, valuation, financials")
    failed: dict[str, str] = Field(default_factory=dict, description="chart id -> why it could not be built")


class ChartDataService:
    def __init__(
        self,
        data: StockData,
        builder: ChartSeriesBuilder,
    ):
        self._data = data
        self._builder = builder

    def build(self, symbol: str, as_of: date | None = None, only: Collection[str] | None = None) -> ChartSet:
        """Unknown symbol -> NotFoundException; otherwise every chart there is data for (`only`: just
        these of price, valuation, financials; the data page draws the first two)."""
        symbol = require_symbol(symbol)
        day = as_of or date.today()
        canonical, _, _ = require_found(self._data.get_stock_info(symbol), symbol)
        makers: dict[str, Callable[[], ChartSpec | None]] = {
            "price": lambda: self._builder.price(canonical, self._data.get_price_bars(canonical, day), day),
            "valuation": lambda: self._builder.valuation(
                canonical, self._data.get_valuation_dailies(canonical, day), day
            ),
            "financials": lambda: self._builder.financials(
                canonical, self._data.get_audit_records(canonical, day), day
            ),
        }
        result = ChartSet()
        for name, make in makers.items():
            if only is not None and name not in only:
                continue
            try:
                chart = make()
            except Exception as exc:  # a chart is an extra: record why and draw the others
                logger.warning("chart %s of %s failed", name, canonical, exc_info=True)
                result.failed[name] = one_line(exc)
                continue
            if chart is not None:
                result.charts.append(chart)
        return result
