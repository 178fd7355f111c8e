"""WebSearchService: the one way any code searches, whatever the provider.

Providers are tried in the configured order; a failing one (or one without its key) is logged
and the next is tried, and when all fail the answer is an empty result, not an error: experts
then say they found nothing. A provider picked explicitly is the only one asked, and its errors
reach the caller. Every provider call is audited; web answers are cached with a TTL that
follows the freshness asked for; nothing dated after the analysis date is returned.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Mapping
from datetime import date, datetime

from stockdesk.shared.errors import BadRequestException, ConfigurationError
from stockdesk.shared.run_scope import active_run_id
from stockdesk.web_search.domain.exceptions import SearchProviderError
from stockdesk.web_search.domain.ports import ISearchStore, IWebSearchProvider
from stockdesk.web_search.domain.search import (
    SearchCallRecord,
    WebSearchItem,
    WebSearchRequest,
    WebSearchResponse,
)

__all__ = [
    "WebSearchItem",
    "WebSearchRequest",
    "WebSearchResponse",
    "WebSearchService",
    "newest_first",
    "point_in_time",
]
logger = logging.getLogger(__name__)

HOUR = 3600.0
CACHE_TTL_SECONDS: dict[str, float] = {
    "oneDay": 1 * HOUR,
    "oneWeek": 6 * HOUR,
    "oneMonth": 24 * HOUR,
    "oneYear": 72 * HOUR,
    "noLimit": 168 * HOUR,
}
ProviderFactory = Callable[[], IWebSearchProvider]


def newest_first(items: list[WebSearchItem]) -> list[WebSearchItem]:
    """Dated items by published_date descending, then undated ones in their original order."""
    dated = [i for i in items if i.published_date is not None]
    undated = [i for i in items if i.published_date is None]
    dated.sort(key=lambda i: i.published_date or datetime.min, reverse=True)
    return dated + undated


def point_in_time(items: list[WebSearchItem], as_of: date, today: date) -> list[WebSearchItem]:
    """Drop what was published after `as_of`; for a past date also what carries no date at all."""
    historical = as_of < today
    return [
        i
        for i in items
        if (i.published_date is None and not historical)
        or (i.published_date is not None and i.published_date.date() <= as_of)
    ]


def cache_key(provider: str, request: WebSearchRequest) -> str:
    payload = {"provider": provider, **request.model_dump(mode="json")}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


class WebSearchService:
    def __init__(
        self,
        providers: Mapping[str, ProviderFactory],
        order: list[str],
        *,
        cache: ISearchStore | None = None,
        audit: ISearchStore | None = None,
        cache_enabled: bool = True,
        today: Callable[[], date] = date.today,
    ):
        """`providers` are factories, so a provider without its key only fails when it is asked.
        `cache` answers repeated searches, `audit` records every call: the same store when there is
        a database; None leaves that part out."""
        unknown = [name for name in order if name not in providers]
        if unknown:
            raise ConfigurationError(
                f"unknown search provider(s) {unknown} in search_providers; choose from {sorted(providers)}"
            )
        self._factories = dict(providers)
        self._built: dict[str, IWebSearchProvider] = {}
        self._order = list(order)
        self._cache = cache
        self._audit = audit
        self._cache_enabled = cache_enabled
        self._today = today

    @property
    def order(self) -> list[str]:
        return list(self._order)

    @property
    def provider_names(self) -> list[str]:
        return sorted(self._factories)

    def search(self, request: WebSearchRequest, *, provider: str | None = None) -> WebSearchResponse:
        if provider is not None:
            if provider not in self._factories:
                raise BadRequestException(
                    f"unknown search provider '{provider}'; choose from {', '.join(self.provider_names)}",
                    code="UNKNOWN_SEARCH_PROVIDER",
                )
            return self._ask(provider, request)
        errors: list[str] = []
        for name in self._order:
            try:
                response = self._ask(name, request)
            except (SearchProviderError, ConfigurationError) as exc:
                logger.warning("search provider %s failed (%s); trying the next one", name, exc.message)
                errors.append(f"{name}: {exc.message}")
                continue
            return response.model_copy(update={"errors": errors})
        return WebSearchResponse(query=request.query, provider="none", errors=errors)

    def _provider(self, name: str) -> IWebSearchProvider:
        if name not in self._built:
            self._built[name] = self._factories[name]()
        return self._built[name]

    def _ask(self, name: str, request: WebSearchRequest) -> WebSearchResponse:
        try:
            provider = self._provider(name)
        except ConfigurationError as exc:
            self._record(name, request, "error", 0.0, 0, exc.message)
            raise
        use_cache = self._cache is not None and self._cache_enabled and provider.cacheable
        key = cache_key(name, request)
        if use_cache and self._cache is not None:
            hit = self._cache.get(key, CACHE_TTL_SECONDS[request.freshness])
            if hit is not None:
                self._record(name, request, "cache_hit", 0.0, len(hit.items), None)
                return hit.model_copy(update={"cached": True})
        started = time.perf_counter()
        try:
            raw = provider.search(request)
        except SearchProviderError as exc:
            self._record(name, request, "error", _ms(started), 0, exc.message)
            raise
        today = self._today()
        items = point_in_time(raw.items, request.as_of or today, today)
        response = WebSearchResponse(query=request.query, provider=name, items=items[: request.count])
        self._record(name, request, "ok", _ms(started), len(response.items), None)
        if use_cache and self._cache is not None:
            self._cache.put(key, response)
        return response

    def _record(
        self,
        name: str,
        request: WebSearchRequest,
        status: str,
        latency_ms: float,
        count: int,
        error: str | None,
    ) -> None:
        if self._audit is None:
            return
        record = SearchCallRecord(
            run_id=active_run_id(),
            provider=name,
            query=request.query,
            freshness=request.freshness,
            count=request.count,
            status=status,  # type: ignore[arg-type]
            latency_ms=latency_ms,
            result_count=count,
            error=error,
        )
        try:
            self._audit.record(record)
        except Exception:  # an audit failure must not lose the answer
            logger.exception("could not record search call")


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
