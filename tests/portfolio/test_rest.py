"""Watchlists and holdings over REST (the real app): each operation, each error with its own code,
and an import that fails naming its line with nothing written."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.container import AppContainer
from tests.api_support import api_client
from tests.portfolio.support import AS_OF, FIXTURES, close_on


@pytest.fixture
def client(app_container: AppContainer) -> TestClient:
    return api_client(app_container)


def test_watchlist_routes(client: TestClient) -> None:
    put = client.put("/api/v1/watchlists/core", json={"symbols": ["600001", "示例地产"]})
    assert put.status_code == 200, put.text
    assert [m["symbol"] for m in put.json()["members"]] == ["600001.SH", "000002.SZ"]
    added = client.post("/api/v1/watchlists/core/symbols", json={"symbols": ["AAPL", "600001.SH"]})
    assert [m["symbol"] for m in added.json()["members"]] == ["600001.SH", "000002.SZ", "AAPL"]
    dropped = client.delete("/api/v1/watchlists/core/symbols/000002.SZ")
    assert [m["symbol"] for m in dropped.json()["members"]] == ["600001.SH", "AAPL"]
    assert [w["name"] for w in client.get("/api/v1/watchlists").json()] == ["core"]
    unknown = client.post("/api/v1/watchlists/core/symbols", json={"symbols": ["ZZZZ"]})
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "UNKNOWN_SYMBOL")
    bad_name = client.put("/api/v1/watchlists/a%2Fb", json={"symbols": ["AAPL"]})
    assert bad_name.status_code in (400, 404)
    assert client.delete("/api/v1/watchlists/core").status_code == 204
    gone = client.get("/api/v1/watchlists/core")
    assert (gone.status_code, gone.json()["error"]["code"]) == (404, "WATCHLIST_NOT_FOUND")


def test_holdings_routes_and_import(client: TestClient) -> None:
    put = client.put(
        "/api/v1/holdings/600001", json={"quantity": 100, "cost_price": 10, "opened_at": "2024-06-01"}
    )
    assert put.status_code == 200, put.text
    assert put.json()["symbol"] == "600001.SH"
    with (FIXTURES / "ths_positions.xls.txt").open("rb") as handle:
        imported = client.post(
            "/api/v1/holdings/import", files={"file": ("ths.xls", handle)}, data={"account": "ths"}
        )
    assert imported.status_code == 200, imported.text
    assert imported.json() == {"layout": "ths", "positions": 2, "accounts": ["ths"], "replaced": False}
    listed = client.get("/api/v1/holdings", params={"as_of": AS_OF.isoformat()}).json()
    assert [(r["account"], r["symbol"]) for r in listed] == [
        ("default", "600001.SH"), ("ths", "000002.SZ"), ("ths", "600001.SH")
    ]  # fmt: skip
    assert listed[0]["close"] == close_on("600001.SH", AS_OF)
    assert listed[0]["days_held"] == 27
    bad = (
        b"symbol,quantity,cost_price\n600001.SH,1,1\n000002.SZ,1,1\nAAPL,1,1\n600003.SH,1,1\n600001.SH,2,2\n"
    )
    refused = client.post("/api/v1/holdings/import", files={"file": ("h.csv", bad)}, data={"replace": "true"})
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert (error["code"], error["details"]["line"]) == ("HOLDINGS_FILE_INVALID", 6)
    assert len(client.get("/api/v1/holdings").json()) == 3  # nothing written
    assert client.delete("/api/v1/holdings/600001.SH", params={"account": "ths"}).status_code == 204
    missing = client.delete("/api/v1/holdings/600001.SH", params={"account": "ths"})
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "POSITION_NOT_FOUND")
    invalid = client.put("/api/v1/holdings/600001.SH", json={"quantity": -1, "cost_price": 1})
    assert invalid.status_code == 400
    assert client.get("/api/v1/holdings", params={"as_of": "0"}).status_code == 400  # not read as 1970-01-01


def test_the_openapi_document_lists_the_routes_and_their_errors(client: TestClient) -> None:
    paths = client.get("/api/v1/openapi.json").json()["paths"]
    assert "404" in paths["/api/v1/watchlists/{name}"]["get"]["responses"]
    assert (
        "HOLDINGS_FILE_INVALID" in paths["/api/v1/holdings/import"]["post"]["responses"]["400"]["description"]
    )
