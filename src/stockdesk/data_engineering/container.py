"""Composition root of data_engineering: the store, its use cases and the importers."""

from __future__ import annotations

from functools import cached_property

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.application.use_cases import (
    GetDailyBarsUseCase,
    GetFilingsUseCase,
    GetFinanceForTickerUseCase,
    GetNewsUseCase,
    GetStockBasicInfoUseCase,
    GetStockDataSummaryUseCase,
    GetValuationDailiesForTickerUseCase,
)
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database


class DataEngineeringContainer:
    def __init__(self, settings: Settings, database: Database):
        self.settings = settings
        self.database = database

    @cached_property
    def repository(self) -> SqlMarketDataRepository:
        return SqlMarketDataRepository(self.database)

    @cached_property
    def import_service(self) -> MarketDataImportService:
        return MarketDataImportService(self.repository)

    @property
    def stock_basic_info(self) -> GetStockBasicInfoUseCase:
        return GetStockBasicInfoUseCase(self.repository)

    @property
    def daily_bars(self) -> GetDailyBarsUseCase:
        return GetDailyBarsUseCase(self.repository)

    @property
    def valuations(self) -> GetValuationDailiesForTickerUseCase:
        return GetValuationDailiesForTickerUseCase(self.repository)

    @property
    def finance(self) -> GetFinanceForTickerUseCase:
        return GetFinanceForTickerUseCase(self.repository)

    @property
    def filings(self) -> GetFilingsUseCase:
        return GetFilingsUseCase(self.repository)

    @property
    def news(self) -> GetNewsUseCase:
        return GetNewsUseCase(self.repository)

    @property
    def summary(self) -> GetStockDataSummaryUseCase:
        return GetStockDataSummaryUseCase(self.repository)
