"""Bocha Web Search (博查), the request shape our WebSearchRequest copies.

API (official doc "Web Search API", https://bocha-ai.feishu.cn/wiki/RXEOw02rFiwzGSkd9mUcqoeAnNK):
`POST {base_url}/v1/web-search`, header `Authorization: Bearer <key>`, JSON body
`{query, summary, count (1-50), freshness (oneDay|oneWeek|oneMonth|oneYear|noLimit)}`. The answer
wraps a Bing-compatible SearchResponse:
`{"code": 200, "log_id": ..., "msg": null, "data": {"_type": "SearchResponse", "queryContext": {...},
"webPages": {"totalEstimatedMatches": ..., "value": [{name, url, displayUrl, snippet, summary,
siteName, siteIcon, datePublished, dateLastCrawled, ...}]}, "images": ..., "videos": null}}`.
A body `code` other than 200 is an error even under HTTP 200.

Dates: `datePublished` carries its zone ("2024-07-22T00:00:00+08:00"). Older answers only have
`dateLastCrawled`, which the doc says is the publication time too, in Beijing time despite its
"Z" suffix; it is read as +08:00 when `datePublished` is missing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from stockdesk.web_search.domain.search import WebSearchItem, WebSearchRequest, WebSearchResponse
from stockdesk.web_search.infrastructure.providers.http import one_line
from stockdesk.web_search.infrastructure.providers.keyed import BearerKeyProvider
from stockdesk.web_search.infrastructure.providers.mapping import parse_published_date, text

API_KEY_ENV = "BOCHA_API_KEY"
DEFAULT_BASE_URL = "https://api.bochaai.com"
BEIJING_OFFSET = "+08:00"


def _crawled_date(value: Any) -> datetime | None:
    """`dateLastCrawled` ends in "Z" but means Beijing time (documented quirk)."""
    if isinstance(value, str) and value.strip().endswith("Z"):
        value = value.strip()[:-1] + BEIJING_OFFSET
    return parse_published_date(value)


def to_item(page: dict[str, Any]) -> WebSearchItem:
    return WebSearchItem(
        title=text(page.get("name")),
        url=text(page.get("url")),
        snippet=text(page.get("snippet")),
        summary=text(page.get("summary")),
        site_name=text(page.get("siteName")),
        published_date=parse_published_date(page.get("datePublished"))
        or _crawled_date(page.get("dateLastCrawled")),
    )


class BochaSearchProvider(BearerKeyProvider):
    name = "bocha"

    path = "/v1/web-search"
    key_env = API_KEY_ENV
    default_base_url = DEFAULT_BASE_URL

    def search(self, request: WebSearchRequest) -> WebSearchResponse:
        body = {
            "query": request.query,
            "summary": request.summary,
            "count": request.count,
            "freshness": request.freshness,
        }
        answer = self.post(body)
        items = [to_item(page) for page in self._pages(answer)]
        return WebSearchResponse(query=request.query, provider=self.name, items=items[: request.count])

    def _pages(self, answer: Any) -> list[dict[str, Any]]:
        answer = self._http.json_object(answer)
        code = answer.get("code", 200)
        if str(code) != "200":
            detail = one_line(text(answer.get("msg")) or text(answer.get("message")))
            suffix = f": {detail}" if detail else ""
            raise self._http.fail(f"answered HTTP 200 with code {code} in the body{suffix}")
        data = answer.get("data")
        pages = data.get("webPages") if isinstance(data, dict) else None
        if not isinstance(data, dict) or not isinstance(pages, (dict, type(None))):
            raise self._http.fail("answered HTTP 200 without data.webPages")
        return self._http.result_objects((pages or {}).get("value"), "data.webPages.value")
