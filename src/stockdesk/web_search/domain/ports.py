"""What web search needs from the outside: providers, a cache of answers, an audit of calls."""

from __future__ import annotations

from abc import ABC, abstractmethod

from stockdesk.web_search.domain.search import SearchCallRecord, WebSearchRequest, WebSearchResponse


class IWebSearchProvider(ABC):
    """One search backend. Raise SearchProviderError (or ConfigurationError for a missing key)."""

    name: str
    cacheable: bool = True  # the local index is not: its answer changes with every import

    @abstractmethod
    def search(self, request: WebSearchRequest) -> WebSearchResponse: ...


class ISearchStore(ABC):
    """What web search keeps in the database: the cache of answers and the audit of every call."""

    @abstractmethod
    def get(self, key: str, max_age_seconds: float) -> WebSearchResponse | None:
        """The cached answer under `key`, unless it is older than `max_age_seconds`."""

    @abstractmethod
    def put(self, key: str, response: WebSearchResponse) -> None: ...

    @abstractmethod
    def record(self, record: SearchCallRecord) -> None:
        """Audit one call (a cache hit included)."""
