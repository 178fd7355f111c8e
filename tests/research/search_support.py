"""Builders for the search-driven experts' tests: a recording provider and a stored news set."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime

import pandas as pd

from stockdesk.data_engineering.application import GetStockBasicInfoUseCase
from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.db import Database
from stockdesk.web_search.application.search_service import WebSearchService
from stockdesk.web_search.domain.ports import IWebSearchProvider
from stockdesk.web_search.domain.search import WebSearchItem, WebSearchRequest, WebSearchResponse

AS_OF = date(2024, 3, 1)


def item(title: str, url: str, day: str | None, *, snippet: str = "text", summary: str = "") -> WebSearchItem:
    published = datetime.fromisoformat(day) if day else None
    return WebSearchItem(title=title, url=url, snippet=snippet, summary=summary, published_date=published)


class RecordingProvider(IWebSearchProvider):
    """Answers every request with `answer(request)` and keeps the requests it was sent."""

    name = "recording"
    cacheable = False

    def __init__(self, answer: Callable[[WebSearchRequest], list[WebSearchItem]] = lambda r: []):
        self.requests: list[WebSearchRequest] = []
        self._answer = answer

    def search(self, request: WebSearchRequest) -> WebSearchResponse:
        self.requests.append(request)
        return WebSearchResponse(query=request.query, provider=self.name, items=self._answer(request))


def search_service(provider: IWebSearchProvider, today: date = AS_OF) -> WebSearchService:
    """Today is AS_OF by default, so undated web results are not dropped as look-ahead risks."""
    return WebSearchService({provider.name: lambda: provider}, [provider.name], today=lambda: today)


def store_with_news(database: Database, news: list[dict] | None = None) -> GetStockBasicInfoUseCase:
    """AAPL (US, no industry) and 600519.SH (CN, 白酒) as securities, plus the given news rows."""
    repo = SqlMarketDataRepository(database)
    securities = pd.DataFrame(
        [
            {"symbol": "AAPL", "name": "Apple", "industry": None, "market": "US", "currency": "USD"},
            {
                "symbol": "600519.SH",
                "name": "贵州茅台",
                "industry": "白酒",
                "market": "CN",
                "currency": "CNY",
            },
        ]
    )
    frames = {"securities": securities}
    if news:
        frames["news"] = pd.DataFrame(news).assign(published_at=lambda f: pd.to_datetime(f["published_at"]))
    MarketDataImportService(repo).import_frames("test", frames)
    return GetStockBasicInfoUseCase(repo)


def news_row(title: str, url: str, published_at: str | None, body: str, symbol: str = "AAPL") -> dict:
    return {
        "symbol": symbol,
        "published_at": published_at,
        "title": title,
        "summary": body[:120],
        "body": body,
        "url": url,
        "source": "example.com",
    }
