"""Application interface of data_engineering: use cases and the DTOs they return.

Other contexts import from here only (import-linter enforces it).
"""

from stockdesk.data_engineering.application.as_of_range import MAX_DAYS_AFTER, AsOfCheckDTO, CheckAsOfUseCase
from stockdesk.data_engineering.application.symbol_lookup import (
    MAX_SUGGESTIONS,
    Suggestion,
    resolve_typed,
    suggest,
)
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
from stockdesk.data_engineering.domain.dtos import (
    DailyBarDTO,
    DailyValuationDTO,
    FilingDTO,
    FilingPageDTO,
    FinancialReportDTO,
    IntradayBarDTO,
    NewsItemDTO,
    PriceHistoryDTO,
    SecurityDTO,
    StockDataSummaryDTO,
    TextHitDTO,
)
from stockdesk.data_engineering.domain.exceptions import AsOfOutOfRangeError
from stockdesk.data_engineering.domain.symbols import cn_exchange, currency_of, market_of, normalize_symbol

__all__ = [
    "MAX_DAYS_AFTER",
    "MAX_SUGGESTIONS",
    "AsOfCheckDTO",
    "AsOfOutOfRangeError",
    "CheckAsOfUseCase",
    "DailyBarDTO",
    "DailyValuationDTO",
    "FilingDTO",
    "FilingPageDTO",
    "FinancialReportDTO",
    "GetDailyBarsUseCase",
    "GetFilingPagesUseCase",
    "GetFilingsUseCase",
    "GetFinanceForTickerUseCase",
    "GetIntradayBarsUseCase",
    "GetMarketFramesUseCase",
    "GetNewsUseCase",
    "GetPriceHistoryUseCase",
    "GetStockBasicInfoUseCase",
    "GetStockDataSummaryUseCase",
    "GetValuationDailiesForTickerUseCase",
    "IntradayBarDTO",
    "ListSecuritiesUseCase",
    "NewsItemDTO",
    "PriceHistoryDTO",
    "SearchStoredTextUseCase",
    "SecurityDTO",
    "StockDataSummaryDTO",
    "Suggestion",
    "TextHitDTO",
    "TradingDayUseCase",
    "cn_exchange",
    "currency_of",
    "market_of",
    "normalize_symbol",
    "resolve_typed",
    "suggest",
]
