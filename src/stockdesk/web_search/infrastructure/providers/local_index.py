"""The embedded default provider: full-text search over stored news and filings, no key, no network.

Freshness is a date window counted back from the analysis date (`as_of`, default today), and
nothing published after that date is visible, so point-in-time analyses never read later news.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from stockdesk.data_engineering.application import SearchStoredTextUseCase, TextHitDTO
from stockdesk.web_search.application.search_service import newest_first
from stockdesk.web_search.domain.ports import IWebSearchProvider
from stockdesk.web_search.domain.search import (
    WebSearchItem,
    WebSearchRequest,
    WebSearchResponse,
    freshness_start,
)


def to_item(hit: TextHitDTO) -> WebSearchItem:
    return WebSearchItem(
        title=hit.title,
        url=hit.url,
        snippet=hit.snippet,
        summary=hit.summary,
        site_name=hit.source,
        published_date=hit.published_at,
    )


class LocalIndexSearchProvider(IWebSearchProvider):
    name = "local"
    cacheable = False  # every import changes the answer

    def __init__(self, search_text: SearchStoredTextUseCase, *, today: Callable[[], date] = date.today):
        self._search_text = search_text
        self._today = today

    def search(self, request: WebSearchRequest) -> WebSearchResponse:
        as_of = request.as_of or self._today()
        hits = self._search_text.execute(
            request.query,
            symbol=request.symbol,
            start=freshness_start(request.freshness, as_of),
            end=as_of,
            limit=request.count,
        )
        return WebSearchResponse(
            query=request.query, provider=self.name, items=newest_first([to_item(h) for h in hits])
        )
