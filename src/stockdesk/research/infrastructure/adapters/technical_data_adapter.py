"""ITechnicalDataPort over data_engineering's use cases."""

from __future__ import annotations

from datetime import date, timedelta

from stockdesk.data_engineering.application import GetDailyBarsUseCase, GetStockBasicInfoUseCase
from stockdesk.research.domain.dtos.technical import PriceBarInput
from stockdesk.research.domain.ports.technical import ITechnicalDataPort

HISTORY_DAYS = 550  # enough calendar days for MA250 plus warm-up


class TechnicalDataAdapter(ITechnicalDataPort):
    def __init__(self, basic_info: GetStockBasicInfoUseCase, bars: GetDailyBarsUseCase):
        self._basic_info = basic_info
        self._bars = bars

    def get_stock_name(self, symbol: str) -> tuple[str, str] | None:
        security = self._basic_info.execute(symbol)
        return (security.symbol, security.name or security.symbol) if security else None

    def get_price_bars(self, symbol: str, as_of: date) -> list[PriceBarInput]:
        rows = self._bars.execute(symbol, as_of=as_of, start=as_of - timedelta(days=HISTORY_DAYS))
        return [PriceBarInput.model_validate(r.model_dump()) for r in rows]
