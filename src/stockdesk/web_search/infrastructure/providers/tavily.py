"""Tavily Search.

API (https://docs.tavily.com/documentation/api-reference/endpoint/search): `POST {base_url}/search`
with `Authorization: Bearer tvly-...` (the current docs' scheme; the old `api_key` body field is
not sent) and JSON `{query, topic (general|news), days (news only), max_results (0-20),
include_answer, include_raw_content}`. The answer is
`{"query", "answer", "images", "results": [{title, url, content, score, raw_content,
published_date}], "response_time", ...}`; news results date themselves in RFC 2822
("Wed, 28 Feb 2024 10:00:00 GMT"), general ones usually not at all.

Freshness: anything but noLimit asks the news topic for `FRESHNESS_DAYS[freshness]` days back.
Summary: Tavily has no summary field. When the request asks for one, the page's raw text is
requested too and its first SUMMARY_CHARS characters become the summary; otherwise it stays "".
`site_name` is the result's host name, since Tavily sends none.
"""

from __future__ import annotations

from typing import Any

from stockdesk.web_search.domain.search import (
    FRESHNESS_DAYS,
    WebSearchItem,
    WebSearchRequest,
    WebSearchResponse,
)
from stockdesk.web_search.infrastructure.providers.http import one_line
from stockdesk.web_search.infrastructure.providers.keyed import BearerKeyProvider
from stockdesk.web_search.infrastructure.providers.mapping import (
    host_of,
    parse_published_date,
    text,
)

API_KEY_ENV = "TAVILY_API_KEY"
DEFAULT_BASE_URL = "https://api.tavily.com"
MAX_RESULTS = 20  # the API's upper bound for max_results
SUMMARY_CHARS = 1500


def to_item(result: dict[str, Any], *, with_summary: bool) -> WebSearchItem:
    url = text(result.get("url"))
    raw = text(result.get("raw_content")) if with_summary else ""
    return WebSearchItem(
        title=text(result.get("title")),
        url=url,
        snippet=text(result.get("content")),
        summary=one_line(raw, SUMMARY_CHARS) if raw else "",
        site_name=host_of(url),
        published_date=parse_published_date(result.get("published_date")),
    )


def request_body(request: WebSearchRequest) -> dict[str, Any]:
    days = FRESHNESS_DAYS[request.freshness]
    body: dict[str, Any] = {
        "query": request.query,
        "max_results": min(request.count, MAX_RESULTS),
        "topic": "general" if days is None else "news",
        "include_answer": False,
        "include_raw_content": request.summary,
    }
    if days is not None:
        body["days"] = days
    return body


class TavilySearchProvider(BearerKeyProvider):
    name = "tavily"

    path = "/search"
    key_env = API_KEY_ENV
    default_base_url = DEFAULT_BASE_URL

    def search(self, request: WebSearchRequest) -> WebSearchResponse:
        answer = self.post(request_body(request))
        answer = self._http.json_object(answer)
        results = self._http.result_objects(answer.get("results"), "results")
        items = [to_item(r, with_summary=request.summary) for r in results]
        return WebSearchResponse(query=request.query, provider=self.name, items=items[: request.count])
