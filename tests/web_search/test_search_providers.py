"""Bocha, Tavily and SearXNG providers against fixtures shaped like their real answers.

HTTP goes through `httpx.MockTransport`: each test checks the request the provider sent (method,
path, body or query, auth header) and the items it made of the answer. Sources of the shapes:
- Bocha: "Web Search API", https://bocha-ai.feishu.cn/wiki/RXEOw02rFiwzGSkd9mUcqoeAnNK
- Tavily: https://docs.tavily.com/documentation/api-reference/endpoint/search
- SearXNG: https://docs.searxng.org/dev/search_api.html, searx/webutils.py get_json_response
(each fixture repeats its source in a `_source` key).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from stockdesk.shared.config import Settings
from stockdesk.shared.errors import ConfigurationError
from stockdesk.web_search.domain.exceptions import SearchProviderError
from stockdesk.web_search.domain.search import WebSearchRequest
from stockdesk.web_search.infrastructure.providers.bocha import BochaSearchProvider
from stockdesk.web_search.infrastructure.providers.factory import WEB_PROVIDERS, build_web_search_provider
from stockdesk.web_search.infrastructure.providers.http import RetryPolicy
from stockdesk.web_search.infrastructure.providers.mapping import parse_published_date
from stockdesk.web_search.infrastructure.providers.searxng import SearxngSearchProvider
from stockdesk.web_search.infrastructure.providers.tavily import TavilySearchProvider

FIXTURES = Path(__file__).parent / "fixtures" / "search"
BOCHA_KEY = "sk-bocha-test-7f3a9c1e"
TAVILY_KEY = "tvly-dev-test-5b2d8e4f"
SEARXNG_URL = "http://searx.lan:8888"
NO_WAIT = RetryPolicy(attempts=3, backoff_seconds=0.0)

Answer = httpx.Response | Exception | Callable[[httpx.Request], httpx.Response]


def fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


class FakeApi:
    """Answers requests from a script (the last answer repeats) and keeps what it received."""

    def __init__(self, *answers: Answer):
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []
        self.sleeps: list[float] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        if callable(answer) and not isinstance(answer, httpx.Response):
            return answer(request)
        return answer

    @property
    def client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self))

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)

    @property
    def body(self) -> dict[str, Any]:
        return json.loads(self.requests[-1].content)


def bocha(api: FakeApi) -> BochaSearchProvider:
    return BochaSearchProvider(BOCHA_KEY, client=api.client, retry=NO_WAIT, sleep=api.sleep)


def tavily(api: FakeApi) -> TavilySearchProvider:
    return TavilySearchProvider(TAVILY_KEY, client=api.client, retry=NO_WAIT, sleep=api.sleep)


def searxng(api: FakeApi, base_url: str = SEARXNG_URL) -> SearxngSearchProvider:
    return SearxngSearchProvider(base_url, client=api.client, retry=NO_WAIT, sleep=api.sleep)


@pytest.fixture(autouse=True)
def no_search_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("BOCHA_API_KEY", "TAVILY_API_KEY", "SEARXNG_URL", "STOCKDESK_SEARXNG_URL"):
        monkeypatch.delenv(name, raising=False)
    yield


# --------------------------------------------------------------------------- dates


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2024-02-28T10:00:00+08:00", datetime(2024, 2, 28, 2, 0)),
        ("2024-02-28T10:00:00Z", datetime(2024, 2, 28, 10, 0)),
        ("2024-02-28 10:00:00", datetime(2024, 2, 28, 10, 0)),
        ("2024-02-28", datetime(2024, 2, 28)),
        ("Wed, 28 Feb 2024 10:00:00 GMT", datetime(2024, 2, 28, 10, 0)),
        ("Wed, 28 Feb 2024 10:00:00 +0800", datetime(2024, 2, 28, 2, 0)),
        ("yesterday", None),
        ("", None),
        (None, None),
        (20240228, None),
    ],
)
def test_dates_become_naive_utc_and_garbage_becomes_none(raw: Any, expected: datetime | None) -> None:
    parsed = parse_published_date(raw)
    assert parsed == expected
    assert parsed is None or parsed.tzinfo is None


# --------------------------------------------------------------------------- bocha


def test_bocha_sends_the_documented_request_and_maps_web_pages() -> None:
    api = FakeApi(httpx.Response(200, json=fixture("bocha_web_search.json")))
    request = WebSearchRequest(query="贵州茅台  2023年报 营收", freshness="oneMonth", count=10, summary=True)

    response = bocha(api).search(request)

    sent = api.requests[0]
    assert sent.method == "POST"
    assert str(sent.url) == "https://api.bochaai.com/v1/web-search"
    assert sent.headers["Authorization"] == f"Bearer {BOCHA_KEY}"
    assert api.body == {
        "query": "贵州茅台 2023年报 营收",
        "summary": True,
        "count": 10,
        "freshness": "oneMonth",
    }
    assert sent.extensions["timeout"]["read"] == 20.0

    assert response.provider == "bocha"
    assert response.query == "贵州茅台 2023年报 营收"
    assert [i.url for i in response.items] == [
        "https://finance.example.com.cn/stock/600519/20240402/annual.html",
        "https://research.example.org/notes/600519-2023",
        "https://news.example.net/baijiu/2023-review",
    ]
    first = response.items[0]
    assert first.title == "贵州茅台发布2023年年度报告：营业总收入同比增长18%"
    assert first.snippet.startswith("贵州茅台披露2023年年报")
    assert first.summary.endswith("公司拟每10股派发现金红利308.76元。")
    assert first.site_name == "示例财经"
    assert first.published_date == datetime(2024, 4, 2, 12, 15)  # 20:15 Beijing time
    assert response.items[1].summary == ""
    # only dateLastCrawled: its "Z" means Beijing time, so 08:00 is 00:00 UTC
    assert response.items[2].published_date == datetime(2024, 1, 15, 0, 0)


def test_bocha_keeps_at_most_count_items() -> None:
    api = FakeApi(httpx.Response(200, json=fixture("bocha_web_search.json")))
    response = bocha(api).search(WebSearchRequest(query="茅台", count=2))
    assert len(response.items) == 2
    assert api.body["count"] == 2


def test_bocha_without_web_pages_is_an_empty_answer() -> None:
    answer = {"code": 200, "log_id": "a1", "msg": None, "data": {"_type": "SearchResponse", "webPages": None}}
    api = FakeApi(httpx.Response(200, json=answer))
    assert bocha(api).search(WebSearchRequest(query="无结果")).items == []


def test_bocha_body_code_other_than_200_is_an_error() -> None:
    answer = {"code": 400, "log_id": "b2", "msg": "Missing parameter query", "data": None}
    api = FakeApi(httpx.Response(200, json=answer))
    with pytest.raises(SearchProviderError) as caught:
        bocha(api).search(WebSearchRequest(query="茅台"))
    assert "'bocha'" in caught.value.message
    assert "code 400" in caught.value.message
    assert "Missing parameter query" in caught.value.message
    assert len(api.requests) == 1


def test_a_500_is_retried_then_the_answer_is_used() -> None:
    api = FakeApi(
        httpx.Response(500, json={"code": 500, "message": "internal error"}),
        httpx.Response(200, json=fixture("bocha_web_search.json")),
    )
    response = bocha(api).search(WebSearchRequest(query="茅台"))
    assert len(api.requests) == 2
    assert api.sleeps == [0.0]  # the injected sleeper, not time.sleep
    assert len(response.items) == 3


def test_a_persistent_503_fails_after_every_attempt_with_the_status() -> None:
    api = FakeApi(httpx.Response(503, text="Service Unavailable"))
    with pytest.raises(SearchProviderError) as caught:
        bocha(api).search(WebSearchRequest(query="茅台"))
    assert len(api.requests) == 3
    assert caught.value.message == "search provider 'bocha' failed (HTTP 503) after 3 attempts"


def test_a_429_is_retried() -> None:
    api = FakeApi(
        httpx.Response(429, json={"code": 429, "message": "You have reached the request limit"}),
        httpx.Response(200, json=fixture("bocha_web_search.json")),
    )
    assert len(bocha(api).search(WebSearchRequest(query="茅台")).items) == 3
    assert len(api.requests) == 2


def test_a_401_fails_at_once_and_never_shows_the_key(caplog: pytest.LogCaptureFixture) -> None:
    # a server that echoes the key back must not get it into our message
    answer = {"code": 401, "message": f"Invalid API KEY: {BOCHA_KEY}", "log_id": "c3"}
    api = FakeApi(httpx.Response(401, json=answer))
    with caplog.at_level(logging.DEBUG), pytest.raises(SearchProviderError) as caught:
        bocha(api).search(WebSearchRequest(query="茅台"))
    message = caught.value.message
    assert len(api.requests) == 1
    assert "'bocha'" in message and "HTTP 401" in message and "$BOCHA_API_KEY" in message
    assert "Invalid API KEY" in message
    assert BOCHA_KEY not in message
    assert BOCHA_KEY not in str(caught.value)
    assert BOCHA_KEY not in caplog.text
    assert "\n" not in message


def test_retries_are_logged_without_the_key(caplog: pytest.LogCaptureFixture) -> None:
    api = FakeApi(httpx.Response(502), httpx.Response(200, json=fixture("bocha_web_search.json")))
    with caplog.at_level(logging.DEBUG):
        bocha(api).search(WebSearchRequest(query="茅台"))
    assert "bocha: HTTP 502 on attempt 1 of 3" in caplog.text
    assert BOCHA_KEY not in caplog.text


def test_a_read_timeout_is_not_resent_but_reported() -> None:
    """Like LLM calls: a provider that timed out is not asked again; the next provider is."""
    api = FakeApi(httpx.ReadTimeout("timed out"))
    provider = BochaSearchProvider(
        BOCHA_KEY, timeout_seconds=7.5, client=api.client, retry=NO_WAIT, sleep=api.sleep
    )
    with pytest.raises(SearchProviderError) as caught:
        provider.search(WebSearchRequest(query="茅台"))
    assert len(api.requests) == 1
    assert api.requests[0].extensions["timeout"]["read"] == 7.5
    assert (
        caught.value.message
        == "search provider 'bocha' did not answer within 7.5 s (not resent, no HTTP status)"
    )


def test_a_connect_timeout_is_retried() -> None:
    api = FakeApi(httpx.ConnectTimeout("connect timed out"))
    provider = BochaSearchProvider(
        BOCHA_KEY, timeout_seconds=7.5, client=api.client, retry=NO_WAIT, sleep=api.sleep
    )
    with pytest.raises(SearchProviderError, match="3 attempts"):
        provider.search(WebSearchRequest(query="茅台"))
    assert len(api.requests) == 3


def test_a_connection_error_is_reported_with_the_host_only() -> None:
    api = FakeApi(httpx.ConnectError("[Errno 111] Connection refused"))
    with pytest.raises(SearchProviderError) as caught:
        bocha(api).search(WebSearchRequest(query="茅台"))
    assert len(api.requests) == 3
    assert caught.value.message == (
        "search provider 'bocha' is unreachable at api.bochaai.com: ConnectError (no HTTP status)"
    )


def test_a_body_that_is_not_json_is_an_error() -> None:
    api = FakeApi(httpx.Response(200, text="<html><body>gateway page</body></html>"))
    with pytest.raises(SearchProviderError) as caught:
        bocha(api).search(WebSearchRequest(query="茅台"))
    assert caught.value.message == "search provider 'bocha' answered HTTP 200 with a body that is not JSON"


def test_a_json_answer_of_the_wrong_shape_is_an_error() -> None:
    api = FakeApi(httpx.Response(200, json={"code": 200, "data": {"webPages": {"value": "oops"}}}))
    with pytest.raises(SearchProviderError, match=r"unexpected data\.webPages\.value"):
        bocha(api).search(WebSearchRequest(query="茅台"))


# --------------------------------------------------------------------------- tavily


def test_tavily_sends_bearer_auth_and_asks_news_for_the_freshness_window() -> None:
    api = FakeApi(httpx.Response(200, json=fixture("tavily_search.json")))
    tavily(api).search(WebSearchRequest(query="Kweichow Moutai 2023 results", freshness="oneWeek", count=5))

    sent = api.requests[0]
    assert sent.method == "POST"
    assert str(sent.url) == "https://api.tavily.com/search"
    assert sent.headers["Authorization"] == f"Bearer {TAVILY_KEY}"
    assert api.body == {
        "query": "Kweichow Moutai 2023 results",
        "max_results": 5,
        "topic": "news",
        "days": 7,
        "include_answer": False,
        "include_raw_content": False,
    }
    assert "api_key" not in api.body


@pytest.mark.parametrize(
    ("freshness", "topic", "days"),
    [("oneDay", "news", 1), ("oneMonth", "news", 31), ("oneYear", "news", 366), ("noLimit", "general", None)],
)
def test_tavily_topic_and_days_follow_freshness(freshness: str, topic: str, days: int | None) -> None:
    api = FakeApi(httpx.Response(200, json=fixture("tavily_search.json")))
    tavily(api).search(WebSearchRequest(query="Moutai", freshness=freshness))  # type: ignore[arg-type]
    assert api.body["topic"] == topic
    assert api.body.get("days") == days
    assert ("days" in api.body) is (days is not None)


def test_tavily_max_results_is_capped_at_the_api_limit() -> None:
    api = FakeApi(httpx.Response(200, json=fixture("tavily_search.json")))
    tavily(api).search(WebSearchRequest(query="Moutai", count=50))
    assert api.body["max_results"] == 20


def test_tavily_results_map_content_to_snippet_and_dates_to_utc() -> None:
    api = FakeApi(httpx.Response(200, json=fixture("tavily_search.json")))
    response = tavily(api).search(WebSearchRequest(query="Moutai", freshness="oneWeek"))

    assert response.provider == "tavily"
    first, second = response.items
    assert first.title == "Kweichow Moutai posts 19% profit rise for 2023 - Example Wire"
    assert first.url == "https://www.examplewire.com/markets/moutai-2023-results"
    assert first.snippet.startswith("Kweichow Moutai reported 2023 net profit")
    assert first.site_name == "www.examplewire.com"
    assert first.published_date == datetime(2024, 4, 2, 12, 30)
    assert first.summary == ""  # not asked for
    assert second.published_date is None
    assert second.site_name == "blog.example.org"


def test_tavily_summary_comes_from_raw_content_when_asked() -> None:
    api = FakeApi(httpx.Response(200, json=fixture("tavily_search.json")))
    response = tavily(api).search(WebSearchRequest(query="Moutai", summary=True))
    assert api.body["include_raw_content"] is True
    assert response.items[0].summary == (
        "Kweichow Moutai reported 2023 net profit of about 74.7 billion yuan. "
        "Direct sales through the i-Moutai app rose sharply."
    )
    assert response.items[1].summary == ""  # raw_content null


def test_tavily_401_names_the_env_var_and_keeps_the_server_reason() -> None:
    answer = {"detail": {"error": "Unauthorized: missing or invalid API key."}}
    api = FakeApi(httpx.Response(401, json=answer))
    with pytest.raises(SearchProviderError) as caught:
        tavily(api).search(WebSearchRequest(query="Moutai"))
    assert caught.value.message == (
        "search provider 'tavily' rejected the API key "
        "(HTTP 401: Unauthorized: missing or invalid API key.); check $TAVILY_API_KEY"
    )
    assert TAVILY_KEY not in caught.value.message


# --------------------------------------------------------------------------- searxng


@pytest.mark.parametrize(
    ("freshness", "time_range"),
    [("oneDay", "day"), ("oneWeek", "week"), ("oneMonth", "month"), ("oneYear", "year"), ("noLimit", None)],
)
def test_searxng_time_range_follows_freshness(freshness: str, time_range: str | None) -> None:
    api = FakeApi(httpx.Response(200, json=fixture("searxng_search.json")))
    searxng(api).search(WebSearchRequest(query="贵州茅台 年报", freshness=freshness))  # type: ignore[arg-type]

    sent = api.requests[0]
    assert sent.method == "GET"
    assert sent.url.host == "searx.lan" and sent.url.port == 8888
    assert sent.url.path == "/search"
    expected = {"q": "贵州茅台 年报", "format": "json"}
    if time_range is not None:
        expected["time_range"] = time_range
    assert dict(sent.url.params) == expected
    assert "Authorization" not in sent.headers


def test_searxng_maps_results_and_truncates_to_count() -> None:
    api = FakeApi(httpx.Response(200, json=fixture("searxng_search.json")))
    response = searxng(api).search(WebSearchRequest(query="贵州茅台 年报", count=3))

    assert response.provider == "searxng"
    assert len(response.items) == 3
    first, second, third = response.items
    assert first.title == "贵州茅台2023年年报发布"
    assert first.snippet == "贵州茅台全年实现营业总收入约1505亿元。"
    assert first.site_name == "finance.example.com.cn"
    assert first.published_date == datetime(2024, 4, 2, 12, 15)  # no zone: kept as given
    assert second.published_date == datetime(2024, 4, 10, 0, 0)  # +08:00 -> UTC
    assert third.published_date is None


def test_searxng_unparseable_date_is_none_not_an_error() -> None:
    api = FakeApi(httpx.Response(200, json=fixture("searxng_search.json")))
    items = searxng(api).search(WebSearchRequest(query="茅台", count=10)).items
    assert len(items) == 4
    assert items[3].url == "https://forum.example.com/t/moutai-2023"
    assert items[3].published_date is None


def test_searxng_falls_back_to_the_engine_when_the_url_has_no_host() -> None:
    answer = {"query": "q", "results": [{"url": "", "title": "t", "content": "c", "engine": "wikidata"}]}
    api = FakeApi(httpx.Response(200, json=answer))
    assert searxng(api).search(WebSearchRequest(query="q")).items[0].site_name == "wikidata"


def test_searxng_keeps_a_base_path_and_ignores_a_trailing_slash() -> None:
    api = FakeApi(httpx.Response(200, json=fixture("searxng_search.json")))
    searxng(api, "https://example.org/searx/").search(WebSearchRequest(query="q"))
    assert str(api.requests[0].url).startswith("https://example.org/searx/search?")


def test_searxng_with_every_engine_failed_is_an_error() -> None:
    answer = {
        "query": "茅台",
        "number_of_results": 0,
        "results": [],
        "answers": [],
        "corrections": [],
        "infoboxes": [],
        "suggestions": [],
        "unresponsive_engines": [["google", "timeout"], ["bing", "CAPTCHA"]],
    }
    api = FakeApi(httpx.Response(200, json=answer))
    with pytest.raises(SearchProviderError) as caught:
        searxng(api).search(WebSearchRequest(query="茅台"))
    assert caught.value.message == (
        "search provider 'searxng' answered HTTP 200 but every engine failed (google: timeout, bing: CAPTCHA)"
    )


def test_searxng_with_no_results_and_no_failures_is_an_empty_answer() -> None:
    answer = {"query": "q", "number_of_results": 0, "results": [], "unresponsive_engines": []}
    api = FakeApi(httpx.Response(200, json=answer))
    assert searxng(api).search(WebSearchRequest(query="q")).items == []


def test_searxng_403_says_to_enable_the_json_format() -> None:
    api = FakeApi(httpx.Response(403, text="<html>403 Forbidden</html>"))
    with pytest.raises(SearchProviderError) as caught:
        searxng(api).search(WebSearchRequest(query="q"))
    assert caught.value.message == (
        "search provider 'searxng' refused access (HTTP 403); "
        "enable the json format (search.formats in the instance's settings.yml)"
    )


def test_searxng_url_credentials_stay_out_of_messages() -> None:
    api = FakeApi(httpx.Response(500, json={"error": "proxy for https://bob:hunter2@searx.lan failed"}))
    with pytest.raises(SearchProviderError) as caught:
        searxng(api, "https://bob:hunter2@searx.lan").search(WebSearchRequest(query="q"))
    assert "hunter2" not in caught.value.message
    assert "HTTP 500" in caught.value.message


# --------------------------------------------------------------------------- factory


@pytest.mark.parametrize(("name", "env"), [("bocha", "BOCHA_API_KEY"), ("tavily", "TAVILY_API_KEY")])
def test_factory_without_a_key_names_the_env_var(name: str, env: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        build_web_search_provider(name, Settings())
    assert caught.value.message == f"search provider '{name}' needs an API key in ${env}, which is not set"


def test_factory_treats_a_blank_key_as_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOCHA_API_KEY", "   ")
    with pytest.raises(ConfigurationError, match=r"\$BOCHA_API_KEY"):
        build_web_search_provider("bocha", Settings())


def test_factory_without_a_searxng_url_names_both_env_vars() -> None:
    with pytest.raises(ConfigurationError) as caught:
        build_web_search_provider("searxng", Settings())
    assert "$SEARXNG_URL" in caught.value.message
    assert "$STOCKDESK_SEARXNG_URL" in caught.value.message


@pytest.mark.parametrize("name", ["google", "local", ""])
def test_factory_rejects_names_it_does_not_build(name: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        build_web_search_provider(name, Settings())
    if name == "local":
        assert "container" in caught.value.message
    else:
        assert "bocha, tavily, searxng" in caught.value.message


def test_factory_builds_bocha_from_env_key_and_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOCHA_API_KEY", BOCHA_KEY)
    monkeypatch.setenv("STOCKDESK_BOCHA_BASE_URL", "https://bocha-proxy.example.com/")
    monkeypatch.setenv("STOCKDESK_SEARCH_TIMEOUT_SECONDS", "9")
    api = FakeApi(httpx.Response(200, json=fixture("bocha_web_search.json")))

    provider = build_web_search_provider("bocha", Settings(), client=api.client)
    response = provider.search(WebSearchRequest(query="茅台"))

    assert provider.name == "bocha" and provider.cacheable is True
    assert str(api.requests[0].url) == "https://bocha-proxy.example.com/v1/web-search"
    assert api.requests[0].headers["Authorization"] == f"Bearer {BOCHA_KEY}"
    assert api.requests[0].extensions["timeout"]["read"] == 9.0
    assert len(response.items) == 3


def test_factory_builds_tavily_from_env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", TAVILY_KEY)
    api = FakeApi(httpx.Response(200, json=fixture("tavily_search.json")))
    provider = build_web_search_provider("tavily", Settings(), client=api.client)
    assert provider.search(WebSearchRequest(query="Moutai")).provider == "tavily"
    assert api.requests[0].headers["Authorization"] == f"Bearer {TAVILY_KEY}"


@pytest.mark.parametrize("env", ["SEARXNG_URL", "STOCKDESK_SEARXNG_URL"])
def test_factory_builds_searxng_from_either_env_var(monkeypatch: pytest.MonkeyPatch, env: str) -> None:
    monkeypatch.setenv(env, "http://searx.internal:8080")
    api = FakeApi(httpx.Response(200, json=fixture("searxng_search.json")))
    provider = build_web_search_provider("searxng", Settings(), client=api.client)
    assert provider.search(WebSearchRequest(query="q")).provider == "searxng"
    assert str(api.requests[0].url).startswith("http://searx.internal:8080/search?")


def test_factory_knows_exactly_the_three_web_providers() -> None:
    assert WEB_PROVIDERS == ("bocha", "tavily", "searxng")
