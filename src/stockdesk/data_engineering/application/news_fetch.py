"""Fetch a stock's recent news from its market's news providers into the store (and the index).

Providers only serve the latest few dozen items, so this is a "top up" rather than a resumable
history sync: each run asks for the last `days` days, the upsert on (symbol, url) makes reruns
change nothing, and the first provider that answers wins. When every provider fails the reasons
are reported together in one line.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import date, timedelta

from pydantic import BaseModel

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.domain.exceptions import ProviderUnavailableError
from stockdesk.data_engineering.domain.ports import INewsProvider
from stockdesk.data_engineering.domain.symbols import market_of, normalize_symbol
from stockdesk.shared.errors import BadRequestException, StockdeskError

logger = logging.getLogger(__name__)
MAX_DAYS = 365


class NewsFetchResult(BaseModel):
    symbol: str
    provider: str
    fetched: int
    new: int
    skipped_providers: list[str]


class FetchNewsService:
    def __init__(self, providers: Mapping[str, Sequence[INewsProvider]], importer: MarketDataImportService):
        self._providers = providers
        self._importer = importer

    def fetch(self, symbol: str, days: int = 30, today: date | None = None) -> NewsFetchResult:
        canonical = normalize_symbol(symbol)
        if not 1 <= days <= MAX_DAYS:
            raise BadRequestException(
                f"--days must be between 1 and {MAX_DAYS} (got {days})", code="INVALID_DAYS"
            )
        end = today or date.today()
        market = market_of(canonical)
        providers = list(self._providers.get(market, ()))
        if not providers:
            raise BadRequestException(f"no news provider serves the {market} market", code="NO_NEWS_PROVIDER")
        failures: list[str] = []
        for provider in providers:
            try:
                frame = provider.news(canonical, end - timedelta(days=days), end)
            except StockdeskError as exc:
                logger.warning("news from %s for %s failed: %s", provider.name, canonical, exc.message)
                failures.append(f"{provider.name}: {exc.message}")
                continue
            result = self._importer.import_frames(f"{provider.name} news {canonical}", {"news": frame})
            return NewsFetchResult(
                symbol=canonical,
                provider=provider.name,
                fetched=len(frame),
                new=result.new_rows.get("news", 0),
                skipped_providers=failures,
            )
        raise ProviderUnavailableError(f"no news for {canonical}: " + "; ".join(failures))
