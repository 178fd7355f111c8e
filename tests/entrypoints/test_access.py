"""Access control on the real app: API keys, Host allowlist, Origin, CORS, body size, per-key limits.

Each test builds the app with the policy `stockdesk serve` would use (see api_support.api_client)
over a real SQLite store, a real key store and a scripted LLM, and calls it through TestClient.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.security import is_spending
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.access import AuthMode
from stockdesk.shared.config import Settings
from tests.api_support import api_client, early_in_a_minute
from tests.conftest import scripted_service
from tests.research.support import populate_store, valuation_answer

RESEARCH = "/api/v1/research/valuation-model"
QUERY = {"symbol": "600001.SH", "as_of": "2024-06-28"}
STOCK = "/api/v1/stocks/600001.SH"


@pytest.fixture
def container(settings: Settings) -> AppContainer:
    provider = ScriptedProvider([valuation_answer()])
    built = AppContainer(settings, llm_service=scripted_service(provider))
    populate_store(built.database)
    return built


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def code(response) -> str:  # type: ignore[no-untyped-def]
    return response.json()["error"]["code"]


def test_spending_route_needs_a_key_on_loopback(container: AppContainer) -> None:
    client = api_client(container, auth=AuthMode.SPENDING)
    refused = client.get(RESEARCH, params=QUERY)
    assert refused.status_code == 401 and code(refused) == "API_KEY_REQUIRED"
    assert refused.headers["WWW-Authenticate"] == "Bearer"
    assert client.get(STOCK).status_code == 200  # reading stored data spends nothing
    _, key = container.api_keys.create("tests")
    ok = client.get(RESEARCH, params=QUERY, headers=bearer(key))
    assert ok.status_code == 200, ok.text
    assert ok.json()["valuation_verdict"] == "Fair"
    assert client.get(RESEARCH, params=QUERY, headers={"X-API-Key": key}).status_code == 200


def test_every_route_needs_a_key_beyond_loopback_but_health_and_docs(container: AppContainer) -> None:
    client = api_client(container, auth=AuthMode.ALL)
    assert client.get(STOCK).status_code == 401
    assert client.get("/api/v1/coordinator/research/sessions").status_code == 401
    for public in ("/api/v1/health", "/api/v1/openapi.json", "/api/v1/docs"):
        assert client.get(public).status_code == 200, public
    _, key = container.api_keys.create("tests")
    assert client.get(STOCK, headers=bearer(key)).status_code == 200


def test_unknown_and_revoked_keys_are_refused(container: AppContainer) -> None:
    client = api_client(container, auth=AuthMode.SPENDING)
    wrong = client.get(STOCK, headers=bearer("sdk_not-a-key"))
    assert wrong.status_code == 401 and code(wrong) == "API_KEY_INVALID"
    record, key = container.api_keys.create("tests")
    assert client.get(STOCK, headers=bearer(key)).status_code == 200
    assert container.api_keys.revoke(record.id) is not None
    revoked = client.get(RESEARCH, params=QUERY, headers=bearer(key))
    assert revoked.status_code == 401 and code(revoked) == "API_KEY_INVALID"


def test_keys_are_stored_hashed(container: AppContainer) -> None:
    from sqlalchemy import text

    record, key = container.api_keys.create("tests")
    with container.database.engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(text("SELECT * FROM api_keys"))]
    assert rows and all(key not in str(value) for row in rows for value in row)
    assert record.prefix == key[: len(record.prefix)] and len(record.prefix) < len(key) // 3


def test_a_foreign_host_header_gets_400(container: AppContainer) -> None:
    client = api_client(container, auth=AuthMode.NONE)
    for path in ("/api/v1/health", STOCK):
        response = client.get(path, headers={"Host": "evil.example"})
        assert response.status_code == 400 and code(response) == "HOST_NOT_ALLOWED"
    assert client.get("/api/v1/health", headers={"Host": "localhost:8000"}).status_code == 200
    assert client.get("/api/v1/health", headers={"Host": "[::1]:8000"}).status_code == 200


def test_cross_site_origin_is_refused_on_state_changing_and_spending_routes(container: AppContainer) -> None:
    client = api_client(container, auth=AuthMode.NONE)
    post = client.post("/api/v1/strategy/runs/nope/cancel", headers={"Origin": "http://evil.example"})
    assert post.status_code == 403 and code(post) == "ORIGIN_FORBIDDEN"
    same = client.post("/api/v1/strategy/runs/nope/cancel", headers={"Origin": "http://127.0.0.1"})
    assert same.status_code == 404  # same origin passes the check and reaches the route
    fetched = client.get(RESEARCH, params=QUERY, headers={"Sec-Fetch-Site": "cross-site"})
    assert fetched.status_code == 403 and code(fetched) == "ORIGIN_FORBIDDEN"
    assert client.get(RESEARCH, params=QUERY, headers={"Sec-Fetch-Site": "same-origin"}).status_code == 200


def test_cors_is_closed_by_default_and_opens_only_to_configured_origins(container: AppContainer) -> None:
    closed = api_client(container).get(STOCK, headers={"Origin": "http://app.example"})
    assert "access-control-allow-origin" not in closed.headers
    opened = api_client(container, cors_origins=("http://app.example",))
    answer = opened.get(STOCK, headers={"Origin": "http://app.example"})
    assert answer.headers["access-control-allow-origin"] == "http://app.example"
    assert opened.post("/api/v1/jobs/x/cancel", headers={"Origin": "http://app.example"}).status_code == 404


def test_large_bodies_get_413_declared_or_streamed(container: AppContainer) -> None:
    client = api_client(container, max_body_bytes=2_000)
    big = client.post("/api/v1/strategy/backtest", content=b"{" + b" " * 5_000 + b"}",
                      headers={"Content-Type": "application/json"})  # fmt: skip
    assert big.status_code == 413 and code(big) == "BODY_TOO_LARGE"

    def chunks():  # type: ignore[no-untyped-def]
        for _ in range(10):
            yield b" " * 500

    streamed = client.post("/api/v1/strategy/backtest", content=chunks(),
                           headers={"Content-Type": "application/json"})  # fmt: skip
    assert streamed.status_code == 413


def test_rate_limit_answers_429_with_retry_after(container: AppContainer) -> None:
    client = api_client(container, auth=AuthMode.SPENDING, rate_per_minute=2)
    _, key = container.api_keys.create("tests")
    early_in_a_minute(10)  # three requests, the third refused, all within one minute
    answers = [client.get(RESEARCH, params=QUERY, headers=bearer(key)) for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 429]
    assert code(answers[2]) == "RATE_LIMITED" and 1 <= int(answers[2].headers["Retry-After"]) <= 60
    _, other = container.api_keys.create("other")  # limits are per key
    assert client.get(RESEARCH, params=QUERY, headers=bearer(other)).status_code == 200


def test_daily_token_budget_is_charged_and_enforced_per_key(container: AppContainer) -> None:
    client = api_client(container, auth=AuthMode.SPENDING, max_tokens_per_day=200)
    record, key = container.api_keys.create("tests")
    today = datetime.now(UTC).date()
    first = client.get(RESEARCH, params=QUERY, headers=bearer(key))
    assert first.status_code == 200
    assert container.api_keys.tokens_on(record.id, today) == 150  # the scripted call's 100 + 50
    second = client.get(RESEARCH, params=QUERY, headers=bearer(key))  # 50 left: one call still fits
    assert second.status_code == 200
    assert container.api_keys.tokens_on(record.id, today) == 300
    spent = client.get(RESEARCH, params=QUERY, headers=bearer(key))
    assert spent.status_code == 429 and code(spent) == "TOKEN_BUDGET_SPENT"
    assert int(spent.headers["Retry-After"]) > 0


def test_per_request_token_budget_stops_the_request(settings: Settings) -> None:
    """The first answer is not JSON, so the route needs a repair call: a 100-token cap refuses it."""
    provider = ScriptedProvider(["no JSON here", valuation_answer()])
    built = AppContainer(settings, llm_service=scripted_service(provider))
    populate_store(built.database)
    _, key = built.api_keys.create("tests")
    capped = api_client(built, auth=AuthMode.SPENDING, max_tokens_per_request=100)
    refused = capped.get(RESEARCH, params=QUERY, headers=bearer(key))
    assert refused.status_code == 429 and code(refused) == "LLM_TOKEN_BUDGET_EXCEEDED"
    assert provider.calls == 1  # the repair was never sent
    roomy = api_client(built, auth=AuthMode.SPENDING, max_tokens_per_request=1_000)
    assert roomy.get(RESEARCH, params=QUERY, headers=bearer(key)).status_code == 200
    assert provider.calls == 2  # answered by the script's last entry, repeated


def test_bounds_answer_422_with_their_code(settings: Settings) -> None:
    bounded = settings.model_copy(update={"strategy_max_iterations": 10, "max_universe_symbols": 3})
    container = AppContainer(bounded, llm_service=scripted_service(ScriptedProvider([valuation_answer()])))
    populate_store(container.database)
    client = api_client(container)
    over_schema = client.post("/api/v1/strategy/runs", json={"iterations": 60})
    assert over_schema.status_code == 400  # the schema's own bound (50)
    runs = client.post("/api/v1/strategy/runs", json={"iterations": 20})
    assert runs.status_code == 422 and code(runs) == "TOO_MANY_ITERATIONS"
    window = client.post("/api/v1/evaluations", json={"symbols": ["600001.SH"], "start": "1990-01-01",
                                                      "end": "2024-06-28"})  # fmt: skip
    assert window.status_code == 422 and code(window) == "WINDOW_TOO_LONG"
    many = client.post("/api/v1/strategy/backtest", json={"universe": [f"60{i:04d}.SH" for i in range(4)],
                                                          "params": {}})  # fmt: skip
    assert many.status_code == 422 and code(many) == "UNIVERSE_TOO_LARGE"


def test_schema_declares_every_status_a_route_answers(container: AppContainer) -> None:
    schema = api_client(container).get("/api/v1/openapi.json").json()
    research = schema["paths"][RESEARCH]["get"]
    assert {"400", "401", "403", "429"} <= set(research["responses"]) and "422" in research["responses"]
    symbol = next(p for p in research["parameters"] if p["name"] == "symbol")
    assert symbol["required"] is True  # the route answers 400 without it, so the schema says required
    health = schema["paths"]["/api/v1/health"]["get"]
    assert "401" not in health["responses"]


def test_starting_a_batch_analysis_needs_a_key_on_loopback(container: AppContainer) -> None:
    client = api_client(container, auth=AuthMode.SPENDING)
    refused = client.post("/api/v1/batch/analyses", json={"symbols": ["600001.SH"], "as_of": "2024-06-28"})
    assert refused.status_code == 401 and code(refused) == "API_KEY_REQUIRED"
    assert client.get("/api/v1/jobs/nope").status_code == 404  # reading a job spends nothing


def test_a_scheduled_run_over_rest_is_a_spending_route(container: AppContainer) -> None:
    """Its experts and full modes call the models: a key is asked first, before the schedule is looked up."""
    client = api_client(container, auth=AuthMode.SPENDING)
    refused = client.post("/api/v1/schedules/close/run")
    assert refused.status_code == 401 and code(refused) == "API_KEY_REQUIRED"
    assert client.get("/api/v1/schedules").status_code == 200  # listing them spends nothing
    _, key = container.api_keys.create("tests")
    unknown = client.post("/api/v1/schedules/close/run", headers=bearer(key))
    assert unknown.status_code == 404, unknown.text
    assert is_spending("POST", "/api/v1/schedules/close/run")  # counted in the spending rate class
