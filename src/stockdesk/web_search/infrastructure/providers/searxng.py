"""A self-hosted SearXNG metasearch instance (no key; the JSON format must be enabled).

API (https://docs.searxng.org/dev/search_api.html): `GET {base_url}/search?q=...&format=json`
with optional `time_range` in day|week|month|year (the values `searx/webadapter.py:
parse_time_range` accepts). An instance without `json` in `search.formats` answers 403. The
answer (`searx/webutils.py: get_json_response`) is `{"query", "number_of_results", "results":
[{url, title, content, engine, engines, parsed_url, score, category, publishedDate, ...}],
"answers", "corrections", "infoboxes", "suggestions", "unresponsive_engines": [[engine, error]]}`;
`publishedDate` is a Python `isoformat()` string or null.

SearXNG answers HTTP 200 with no results when every engine failed; that is raised as an error
so the search service moves on to the next provider. `site_name` is the result's host name (the
site), or the engine's name when the URL has no host. Only the first page is asked for, so fewer
than `count` results may come back; more are cut to `count`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx

from stockdesk.shared.errors import ConfigurationError
from stockdesk.shared.redact import url_secrets
from stockdesk.web_search.domain.ports import IWebSearchProvider
from stockdesk.web_search.domain.search import WebSearchItem, WebSearchRequest, WebSearchResponse
from stockdesk.web_search.infrastructure.providers.http import ProviderHttp, RetryPolicy, one_line
from stockdesk.web_search.infrastructure.providers.mapping import (
    host_of,
    parse_published_date,
    text,
)

TIME_RANGES: dict[str, str | None] = {
    "oneDay": "day",
    "oneWeek": "week",
    "oneMonth": "month",
    "oneYear": "year",
    "noLimit": None,
}


def to_item(result: dict[str, Any]) -> WebSearchItem:
    url = text(result.get("url"))
    return WebSearchItem(
        title=text(result.get("title")),
        url=url,
        snippet=text(result.get("content")),
        site_name=host_of(url) or text(result.get("engine")),
        published_date=parse_published_date(result.get("publishedDate")),
    )


def query_params(request: WebSearchRequest) -> dict[str, str]:
    params = {"q": request.query, "format": "json"}
    time_range = TIME_RANGES[request.freshness]
    if time_range is not None:
        params["time_range"] = time_range
    return params


def _engine_errors(value: Any) -> str:
    """`unresponsive_engines` pairs as "google: timeout, bing: CAPTCHA"."""
    pairs = [p for p in value if isinstance(p, (list, tuple)) and p] if isinstance(value, list) else []
    return ", ".join(": ".join(str(x) for x in pair[:2]) for pair in pairs)


class SearxngSearchProvider(IWebSearchProvider):
    name = "searxng"

    def __init__(
        self,
        base_url: str,
        *,
        timeout_seconds: float = 20.0,
        client: httpx.Client | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        if not base_url:
            raise ConfigurationError("search provider 'searxng' needs the base URL of an instance")
        self._url = f"{base_url.rstrip('/')}/search"
        self._http = ProviderHttp(
            self.name,
            timeout_seconds=timeout_seconds,
            client=client,
            retry=retry,
            sleep=sleep,
            secrets=url_secrets(base_url),  # a URL may carry basic-auth credentials or a token
            hints={403: "enable the json format (search.formats in the instance's settings.yml)"},
        )

    def search(self, request: WebSearchRequest) -> WebSearchResponse:
        answer = self._http.get_json(self._url, params=query_params(request))
        answer = self._http.json_object(answer)
        results = self._http.result_objects(answer.get("results"), "results")
        failed = _engine_errors(answer.get("unresponsive_engines"))
        if not results and failed:
            raise self._http.fail(f"answered HTTP 200 but every engine failed ({one_line(failed)})")
        items = [to_item(r) for r in results]
        return WebSearchResponse(query=request.query, provider=self.name, items=items[: request.count])

    def close(self) -> None:
        self._http.close()
