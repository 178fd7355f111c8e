"""Builds the three web search providers (bocha, tavily, searxng) from settings and the environment.

Keys are read from the environment at build time and never stored in settings. The local news
index ("local") is not built here: it needs the data context's use case, which the container has.
"""

from __future__ import annotations

import os

import httpx

from stockdesk.shared.config import Settings
from stockdesk.shared.errors import ConfigurationError
from stockdesk.web_search.domain.ports import IWebSearchProvider
from stockdesk.web_search.infrastructure.providers.bocha import BochaSearchProvider
from stockdesk.web_search.infrastructure.providers.keyed import BearerKeyProvider
from stockdesk.web_search.infrastructure.providers.searxng import SearxngSearchProvider
from stockdesk.web_search.infrastructure.providers.tavily import TavilySearchProvider

WEB_PROVIDERS: tuple[str, ...] = ("bocha", "tavily", "searxng")
SEARXNG_URL_ENVS = ("SEARXNG_URL", "STOCKDESK_SEARXNG_URL")
# keyed web APIs: the class (which names its key's env var) and the setting with its base URL
KEYED_PROVIDERS: dict[str, tuple[type[BearerKeyProvider], str]] = {
    "bocha": (BochaSearchProvider, "bocha_base_url"),
    "tavily": (TavilySearchProvider, "tavily_base_url"),
}


def _api_key(provider: str, env: str) -> str:
    key = os.environ.get(env, "").strip()
    if not key:
        raise ConfigurationError(f"search provider '{provider}' needs an API key in ${env}, which is not set")
    return key


def build_web_search_provider(
    name: str, settings: Settings, *, client: httpx.Client | None = None
) -> IWebSearchProvider:
    """One of WEB_PROVIDERS; `client` lets tests answer through httpx.MockTransport."""
    timeout = settings.search_timeout_seconds
    if name in KEYED_PROVIDERS:
        provider, base_url = KEYED_PROVIDERS[name]
        return provider(
            _api_key(name, provider.key_env),
            base_url=getattr(settings, base_url),
            timeout_seconds=timeout,
            client=client,
        )
    if name == "searxng":
        url = (settings.searxng_url or "").strip()
        if not url:
            raise ConfigurationError(
                "search provider 'searxng' needs the base URL of an instance in "
                f"${SEARXNG_URL_ENVS[0]} (or ${SEARXNG_URL_ENVS[1]}), which is not set"
            )
        return SearxngSearchProvider(url, timeout_seconds=timeout, client=client)
    if name == "local":
        raise ConfigurationError(
            "search provider 'local' is the stored news index, built by the container, not by this factory"
        )
    raise ConfigurationError(
        f"unknown web search provider {name!r}; choose one of: {', '.join(WEB_PROVIDERS)}"
    )
