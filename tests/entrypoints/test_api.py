"""REST: health, docs, and the error mapping every later route relies on."""

from __future__ import annotations

import logging

import pytest
from fastapi import APIRouter
from fastapi.testclient import TestClient

from stockdesk.entrypoints.api import API_PREFIX, create_app
from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from stockdesk.shared.errors import BadRequestException, LLMOutputParseError, NotFoundException


@pytest.fixture
def client(settings: Settings) -> TestClient:
    app = create_app(AppContainer(settings))
    probe = APIRouter()

    @probe.get("/probe/{kind}")
    def raise_kind(kind: str, n: int = 0) -> dict[str, str]:
        if kind == "bad":
            raise BadRequestException("symbol is required", code="SYMBOL_REQUIRED")
        if kind == "missing":
            raise NotFoundException("该标的不存在", code="STOCK_NOT_FOUND")
        if kind == "parse":
            raise LLMOutputParseError("model JSON invalid", raw_output="{oops", errors=["field `x`"])
        if kind == "crash":
            raise RuntimeError("secret internal detail")
        return {"kind": kind}

    app.include_router(probe, prefix=API_PREFIX)
    return TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)


def test_health_reports_version_database_and_aliases(client: TestClient) -> None:
    response = client.get(f"{API_PREFIX}/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and body["database"] == "ok" and body["llm_aliases"] == ["local"]
    assert response.headers["X-Request-ID"]


def test_openapi_docs_are_served_under_the_prefix(client: TestClient) -> None:
    assert client.get(f"{API_PREFIX}/docs").status_code == 200
    assert "/api/v1/health" in client.get(f"{API_PREFIX}/openapi.json").json()["paths"]


@pytest.mark.parametrize(
    ("kind", "status", "code"),
    [
        ("bad", 400, "SYMBOL_REQUIRED"),
        ("missing", 404, "STOCK_NOT_FOUND"),
        ("parse", 422, "LLM_OUTPUT_PARSE_ERROR"),
        ("crash", 500, "INTERNAL_ERROR"),
    ],
)
def test_errors_map_to_status_and_distinguishable_code(
    client: TestClient, kind: str, status: int, code: str
) -> None:
    response = client.get(f"{API_PREFIX}/probe/{kind}")
    assert response.status_code == status
    error = response.json()["error"]
    assert error["code"] == code
    assert error["request_id"] == response.headers["X-Request-ID"]


def test_unexpected_error_hides_the_traceback_but_logs_it(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR):
        response = client.get(f"{API_PREFIX}/probe/crash", headers={"X-Request-ID": "req-123"})
    assert response.json()["error"] == {
        "code": "INTERNAL_ERROR",
        "message": "internal error; see the server log",
        "request_id": "req-123",
    }
    assert "secret internal detail" not in response.text
    assert any("req-123" in r.getMessage() and r.exc_info for r in caplog.records)


def test_invalid_query_parameter_is_a_400_with_the_field(client: TestClient) -> None:
    response = client.get(f"{API_PREFIX}/probe/ok", params={"n": "not-a-number"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "BAD_REQUEST"
    assert response.json()["error"]["message"].startswith("n:")


def test_unknown_route_uses_the_same_error_envelope(client: TestClient) -> None:
    response = client.get(f"{API_PREFIX}/no-such-route")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"
    assert response.json()["error"]["request_id"] == response.headers["X-Request-ID"]
