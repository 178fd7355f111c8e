"""WebSearchService: provider order and fail-over, explicit providers, cache TTL, audit, point in time."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.db import Database
from stockdesk.shared.errors import BadRequestException, ConfigurationError
from stockdesk.web_search.application.search_service import WebSearchService, newest_first, point_in_time
from stockdesk.web_search.domain.exceptions import SearchProviderError
from stockdesk.web_search.domain.ports import IWebSearchProvider
from stockdesk.web_search.domain.search import WebSearchItem, WebSearchRequest, WebSearchResponse
from stockdesk.web_search.infrastructure.persistence.repositories import SqlSearchStore
from tests.conftest import scripted_service

TODAY = date(2024, 3, 1)


def item(url: str, day: str | None) -> WebSearchItem:
    return WebSearchItem(
        title=url, url=url, snippet="s", published_date=datetime.fromisoformat(day) if day else None
    )


class Fixed(IWebSearchProvider):
    def __init__(self, name: str, items: list[WebSearchItem] | None = None, error: str | None = None):
        self.name = name
        self.items = items or []
        self.error = error
        self.calls = 0

    def search(self, request: WebSearchRequest) -> WebSearchResponse:
        self.calls += 1
        if self.error:
            raise SearchProviderError(self.error)
        return WebSearchResponse(query=request.query, provider=self.name, items=self.items)


def missing_key() -> IWebSearchProvider:
    raise ConfigurationError("search provider 'bocha' needs an API key in $BOCHA_API_KEY, which is not set")


def service(providers: dict, order: list[str], database: Database | None = None, **kw) -> WebSearchService:
    return WebSearchService(
        providers,
        order,
        cache=SqlSearchStore(database, **kw) if database else None,
        audit=SqlSearchStore(database) if database else None,
        today=lambda: TODAY,
    )


def test_failing_provider_hands_over_to_the_next(database: Database) -> None:
    down = Fixed("tavily", error="tavily: HTTP 503")
    up = Fixed("local", [item("u1", "2024-02-01")])
    svc = service(
        {"bocha": missing_key, "tavily": lambda: down, "local": lambda: up},
        ["bocha", "tavily", "local"],
        database,
    )
    response = svc.search(WebSearchRequest(query="iphone"))
    assert response.provider == "local" and [i.url for i in response.items] == ["u1"]
    assert [e.split(":")[0] for e in response.errors] == ["bocha", "tavily"]
    assert "BOCHA_API_KEY" in response.errors[0]
    audit = SqlSearchStore(database).recent()
    assert [(r.provider, r.status) for r in reversed(audit)] == [
        ("bocha", "error"),
        ("tavily", "error"),
        ("local", "ok"),
    ]
    assert audit[0].result_count == 1 and audit[0].query == "iphone"


def test_all_providers_down_is_an_empty_answer_not_an_error() -> None:
    svc = service(
        {"a": lambda: Fixed("a", error="a down"), "b": lambda: Fixed("b", error="b down")}, ["a", "b"]
    )
    response = svc.search(WebSearchRequest(query="x"))
    assert response.provider == "none" and response.items == [] and len(response.errors) == 2


def test_explicit_provider_errors_reach_the_caller() -> None:
    svc = service({"bocha": missing_key, "local": lambda: Fixed("local")}, ["local"])
    with pytest.raises(ConfigurationError, match=r"\$BOCHA_API_KEY"):
        svc.search(WebSearchRequest(query="x"), provider="bocha")
    with pytest.raises(BadRequestException, match="unknown search provider 'google'"):
        svc.search(WebSearchRequest(query="x"), provider="google")


def test_unknown_provider_in_the_configured_order_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="bing"):
        service({"local": lambda: Fixed("local")}, ["bing"])


def test_nothing_published_after_as_of_is_returned() -> None:
    items = [
        item("after", "2024-03-02T09:00"),
        item("same-day", "2024-03-01T23:00"),
        item("before", "2024-02-01"),
    ]
    svc = service({"web": lambda: Fixed("web", [*items, item("undated", None)])}, ["web"])
    live = svc.search(WebSearchRequest(query="x", as_of=TODAY))
    assert [i.url for i in live.items] == ["same-day", "before", "undated"]
    past = svc.search(WebSearchRequest(query="x", as_of=date(2024, 2, 15)))
    assert [i.url for i in past.items] == ["before"]  # undated cannot be proven older than a past date


def test_point_in_time_and_newest_first_helpers() -> None:
    items = [item("a", None), item("b", "2024-01-01"), item("c", "2024-02-01"), item("d", None)]
    assert [i.url for i in newest_first(items)] == ["c", "b", "a", "d"]
    assert [i.url for i in point_in_time(items, date(2024, 1, 15), TODAY)] == ["b"]


def test_web_answers_are_cached_per_request_with_a_ttl(database: Database) -> None:
    clock = {"now": datetime(2024, 3, 1, 8, tzinfo=UTC)}
    web = Fixed("web", [item("u1", "2024-02-01")])
    svc = service({"web": lambda: web}, ["web"], database, now=lambda: clock["now"])
    request = WebSearchRequest(query="x", freshness="oneDay", count=5)
    assert not svc.search(request).cached
    assert svc.search(request).cached and web.calls == 1
    assert not svc.search(request.model_copy(update={"count": 6})).cached  # another key
    clock["now"] += timedelta(hours=2)  # oneDay answers live one hour
    assert not svc.search(request).cached and web.calls == 3
    statuses = [r.status for r in SqlSearchStore(database).recent()]
    assert statuses.count("cache_hit") == 1 and statuses.count("ok") == 3


def test_local_index_is_never_cached(database: Database) -> None:
    local = Fixed("local", [item("u1", "2024-02-01")])
    local.cacheable = False
    svc = service({"local": lambda: local}, ["local"], database)
    svc.search(WebSearchRequest(query="x"))
    svc.search(WebSearchRequest(query="x"))
    assert local.calls == 2


def test_search_calls_carry_the_llm_run_id(database: Database) -> None:
    svc = service({"local": lambda: Fixed("local")}, ["local"], database)
    with scripted_service(ScriptedProvider(["{}"])).run_scope("run-42"):
        svc.search(WebSearchRequest(query="x"))
    assert SqlSearchStore(database).recent()[0].run_id == "run-42"


@pytest.mark.parametrize(
    "bad", [{"query": "   "}, {"query": "x", "count": 0}, {"query": "x", "freshness": "oneDecade"}]
)
def test_request_validation(bad: dict) -> None:
    with pytest.raises(ValueError):
        WebSearchRequest(**bad)
