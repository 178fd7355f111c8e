"""Every route's limits on the real app: classes by cost, refusals that cost no quota, backtests
limited per key or per client on keyless loopback, pages refused as pages in their language.

The app is built with the policy `stockdesk serve` uses (tests.api_support.api_client) over a real
SQLite store and key store; the spending and backtest counters are the database's.
"""

from __future__ import annotations

import re
import threading
import time

from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.limits import route_class
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.access import AuthMode
from stockdesk.shared.access.route_limits import ClassLimit, LimitClass, RouteLimits
from stockdesk.shared.config import Settings
from tests.api_support import api_client, early_in_a_minute
from tests.conftest import scripted_service
from tests.research.support import populate_store, valuation_answer

RESEARCH = "/api/v1/research/valuation-model"
QUERY = {"symbol": "600001.SH", "as_of": "2024-06-28"}
BACKTEST = "/api/v1/strategy/backtest"
ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}


def container_with(settings: Settings, provider: ScriptedProvider) -> AppContainer:
    built = AppContainer(settings, llm_service=scripted_service(provider))
    populate_store(built.database)
    return built


def text_of(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def code(response) -> str:  # type: ignore[no-untyped-def]
    return response.json()["error"]["code"]


def test_routes_are_classed_by_what_they_cost() -> None:
    assert route_class("GET", "/api/v1/stocks/600001.SH") is LimitClass.CHEAP
    assert route_class("GET", "/static/app.js") is LimitClass.CHEAP
    assert route_class("POST", "/api/v1/jobs/x/cancel") is LimitClass.CHEAP
    assert route_class("GET", "/data") is LimitClass.PAGE
    assert route_class("POST", "/login") is LimitClass.PAGE
    assert route_class("GET", RESEARCH) is LimitClass.SPENDING
    assert route_class("POST", "/analyses") is LimitClass.SPENDING
    assert route_class("POST", BACKTEST) is LimitClass.SANDBOX
    assert route_class("POST", "/strategy/backtest") is LimitClass.SANDBOX
    assert route_class("POST", "/data/import") is LimitClass.UPLOAD
    assert route_class("GET", "/data/import") is LimitClass.PAGE


def test_a_request_refused_for_concurrency_uses_none_of_the_keys_quota(settings: Settings) -> None:
    provider = ScriptedProvider([valuation_answer()], latency_seconds=2.0)
    container = container_with(settings, provider)
    client = api_client(container, auth=AuthMode.SPENDING, rate_per_minute=2, max_concurrent_per_key=1)
    _, key = container.api_keys.create("tests")
    headers = {"Authorization": f"Bearer {key}"}
    slow: list[int] = []
    early_in_a_minute(20)  # the steps below take about 5 s; the refusal at the end must not cross a minute
    first = threading.Thread(
        target=lambda: slow.append(client.get(RESEARCH, params=QUERY, headers=headers).status_code)
    )
    first.start()
    deadline = time.monotonic() + 30
    while provider.calls == 0:  # the first request is in flight, in the model's call
        assert time.monotonic() < deadline, "the first request never reached the model"
        time.sleep(0.02)
    busy = [client.get(RESEARCH, params=QUERY, headers=headers) for _ in range(3)]
    assert [(b.status_code, code(b)) for b in busy] == [(429, "TOO_MANY_CONCURRENT")] * 3
    assert all(int(b.headers["Retry-After"]) > 0 for b in busy)
    first.join()
    assert slow == [200]
    second = client.get(RESEARCH, params=QUERY, headers=headers)  # the rate's second place: still free
    assert second.status_code == 200, second.text
    spent = client.get(RESEARCH, params=QUERY, headers=headers)
    assert spent.status_code == 429 and code(spent) == "RATE_LIMITED"
    assert spent.json()["error"]["details"]["max"] == 2


def test_backtests_are_limited_per_client_on_keyless_loopback_and_per_key(settings: Settings) -> None:
    container = container_with(settings, ScriptedProvider([valuation_answer()]))
    limits = RouteLimits(sandbox=ClassLimit(per_minute=1, concurrent=1, shared=True))
    client = api_client(container, auth=AuthMode.SPENDING, route_limits=limits)
    first = client.post(BACKTEST, json={"params": "not an object"})  # admitted, then refused by the route
    assert first.status_code == 400 and code(first) == "BAD_REQUEST"
    again = client.post(BACKTEST, json={"params": "not an object"})
    assert again.status_code == 429 and code(again) == "RATE_LIMITED"
    assert 1 <= int(again.headers["Retry-After"]) <= 60
    form = client.post("/strategy/backtest", data={"family": "momentum"}, headers=ZH)  # the lab's form
    assert form.status_code == 429 and form.headers["content-type"].startswith("text/html")
    assert 'data-code="RATE_LIMITED"' in form.text and "每分钟最多 1 次" in text_of(
        form.text
    )  # page's language
    _, key = container.api_keys.create("tests")
    keyed = client.post(
        BACKTEST, json={"params": "not an object"}, headers={"Authorization": f"Bearer {key}"}
    )
    assert keyed.status_code == 400  # a key is counted on its own


def test_pages_and_cheap_reads_have_limits_of_their_own_and_health_has_none(settings: Settings) -> None:
    container = container_with(settings, ScriptedProvider([valuation_answer()]))
    limits = RouteLimits(
        cheap=ClassLimit(per_minute=3, concurrent=3), page=ClassLimit(per_minute=2, concurrent=2)
    )
    client = api_client(container, route_limits=limits)
    reads = [client.get("/api/v1/stocks/600001.SH").status_code for _ in range(4)]
    assert reads == [200, 200, 200, 429]
    refused = client.get("/api/v1/jobs")
    assert code(refused) == "RATE_LIMITED" and refused.json()["error"]["details"] == {
        "max": 3,
        "seconds": int(refused.headers["Retry-After"]),
    }
    assert [client.get("/data").status_code for _ in range(2)] == [200, 200]  # pages: their own budget
    page = client.get("/data")
    assert page.status_code == 429 and 'data-code="RATE_LIMITED"' in page.text
    assert "at most 2 a minute" in text_of(page.text) and page.headers["X-Request-ID"]
    for _ in range(5):
        health = client.get("/api/v1/health")
        assert health.status_code == 200 and health.json()["database"] == "ok"
