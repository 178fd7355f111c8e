"""Composition root of data_engineering: the store, its use cases and the importers."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property

from stockdesk.data_engineering.application.as_of_range import CheckAsOfUseCase
from stockdesk.data_engineering.application.coverage import StoreCoverageUseCase
from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.application.intraday_import import IntradayImportService
from stockdesk.data_engineering.application.news_fetch import FetchNewsService
from stockdesk.data_engineering.application.sync_service import SyncService
from stockdesk.data_engineering.application.use_cases import (
    GetDailyBarsUseCase,
    GetFilingPagesUseCase,
    GetFilingsUseCase,
    GetFinanceForTickerUseCase,
    GetIntradayBarsUseCase,
    GetMarketFramesUseCase,
    GetNewsUseCase,
    GetPriceHistoryUseCase,
    GetStockBasicInfoUseCase,
    GetStockDataSummaryUseCase,
    GetValuationDailiesForTickerUseCase,
    ListSecuritiesUseCase,
    SearchStoredTextUseCase,
    TradingDayUseCase,
)
from stockdesk.data_engineering.domain.ports import IMarketDataProvider, INewsProvider
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.data_engineering.infrastructure.persistence.sync_state import SqlSyncStateRepository
from stockdesk.data_engineering.infrastructure.providers.akshare_provider import AkShareProvider
from stockdesk.data_engineering.infrastructure.providers.common import UnconfiguredProvider
from stockdesk.data_engineering.infrastructure.providers.resilience import SYNC_POLICY
from stockdesk.data_engineering.infrastructure.providers.sec_provider import USER_AGENT_ENV, SecEdgarProvider
from stockdesk.data_engineering.infrastructure.providers.tushare_provider import TOKEN_ENV, TushareProvider
from stockdesk.data_engineering.infrastructure.providers.yfinance_provider import YFinanceProvider
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.errors import ConfigurationError

# the providers that read the environment, and the variable each reads (a key, or SEC's contact)
PROVIDER_ENVS = {"tushare": TOKEN_ENV, "sec": USER_AGENT_ENV}


@dataclass(frozen=True)
class MarketSource:
    """A provider a sync of a market tries, in order; `usable` is False for one that stands in
    unconfigured (a missing environment variable: its datasets fail with that reason)."""

    name: str
    usable: bool


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

    @cached_property
    def intraday_import_service(self) -> IntradayImportService:
        return IntradayImportService(self.repository)

    @cached_property
    def providers_by_market(self) -> dict[str, list[IMarketDataProvider]]:
        """CN: AkShare, then Tushare if TUSHARE_TOKEN is set; US: yfinance, then SEC; HK/TW: yfinance."""
        yfinance = YFinanceProvider(policy=SYNC_POLICY)
        cn: list[IMarketDataProvider] = [AkShareProvider(policy=SYNC_POLICY)]
        if os.environ.get(TOKEN_ENV):
            cn.append(TushareProvider(policy=SYNC_POLICY))
        try:
            sec: IMarketDataProvider = SecEdgarProvider(policy=SYNC_POLICY)
        except ConfigurationError as exc:  # recorded per dataset as the reason SEC was not used
            sec = UnconfiguredProvider("sec", ("US",), exc, serves=("security", "financials"))
        return {"CN": cn, "US": [yfinance, sec], "HK": [yfinance], "TW": [yfinance]}

    def market_sources(self) -> dict[str, list[MarketSource]]:
        """Each market's providers in the order a sync tries them (what the settings page shows)."""
        return {
            market: [MarketSource(p.name, not isinstance(p, UnconfiguredProvider)) for p in providers]
            for market, providers in self.providers_by_market.items()
        }

    @cached_property
    def news_fetch(self) -> FetchNewsService:
        news = {
            market: [p for p in providers if isinstance(p, INewsProvider)]
            for market, providers in self.providers_by_market.items()
        }
        return FetchNewsService(news, self.import_service)

    @cached_property
    def sync_state(self) -> SqlSyncStateRepository:
        return SqlSyncStateRepository(self.database)

    @cached_property
    def sync_service(self) -> SyncService:
        return SyncService(self.providers_by_market, self.repository, self.sync_state)

    @property
    def securities(self) -> ListSecuritiesUseCase:
        return ListSecuritiesUseCase(self.repository)

    @property
    def market_frames(self) -> GetMarketFramesUseCase:
        return GetMarketFramesUseCase(self.repository)

    @property
    def price_history(self) -> GetPriceHistoryUseCase:
        return GetPriceHistoryUseCase(self.repository)

    @property
    def stock_basic_info(self) -> GetStockBasicInfoUseCase:
        return GetStockBasicInfoUseCase(self.repository)

    @property
    def as_of_check(self) -> CheckAsOfUseCase:
        return CheckAsOfUseCase(self.repository)

    @property
    def trading_day(self) -> TradingDayUseCase:
        return TradingDayUseCase(self.repository)

    @property
    def daily_bars(self) -> GetDailyBarsUseCase:
        return GetDailyBarsUseCase(self.repository)

    @property
    def intraday_bars(self) -> GetIntradayBarsUseCase:
        return GetIntradayBarsUseCase(self.repository)

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
    def filing_pages(self) -> GetFilingPagesUseCase:
        return GetFilingPagesUseCase(self.repository)

    @property
    def news(self) -> GetNewsUseCase:
        return GetNewsUseCase(self.repository)

    @property
    def summary(self) -> GetStockDataSummaryUseCase:
        return GetStockDataSummaryUseCase(self.repository)

    @property
    def coverage(self) -> StoreCoverageUseCase:
        """What is stored per symbol, with its last sync and the trading days its bars miss."""
        return StoreCoverageUseCase(self.repository)

    @property
    def stored_text_search(self) -> SearchStoredTextUseCase:
        return SearchStoredTextUseCase(self.repository)
