"""Composition root of web search: the configured providers, the cache and the audit."""

from __future__ import annotations

from stockdesk.data_engineering.application import SearchStoredTextUseCase
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.web_search.application.search_service import ProviderFactory, WebSearchService
from stockdesk.web_search.infrastructure.persistence.repositories import SqlSearchStore
from stockdesk.web_search.infrastructure.providers.factory import (
    KEYED_PROVIDERS,
    WEB_PROVIDERS,
    build_web_search_provider,
)
from stockdesk.web_search.infrastructure.providers.local_index import LocalIndexSearchProvider

# the environment variable holding each keyed web provider's key (SearXNG's URL is a setting)
PROVIDER_ENVS = {name: provider.key_env for name, (provider, _) in KEYED_PROVIDERS.items()}


def build_search_service(
    settings: Settings, database: Database | None, local_index: SearchStoredTextUseCase | None
) -> WebSearchService:
    """Web providers are built on first use, so a missing key only matters when that one is asked."""
    factories: dict[str, ProviderFactory] = {
        name: (lambda name=name: build_web_search_provider(name, settings)) for name in WEB_PROVIDERS
    }
    if local_index is not None:
        factories["local"] = lambda: LocalIndexSearchProvider(local_index)
    store = SqlSearchStore(database) if database else None
    return WebSearchService(
        factories,
        [name for name in settings.search_providers if name in factories],
        cache=store,
        audit=store,
        cache_enabled=settings.search_cache,
    )
