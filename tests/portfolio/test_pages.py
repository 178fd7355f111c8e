"""The Watchlists and Holdings pages over HTTP (the real app): add and remove symbols, set, edit,
remove and import positions, and refused forms answered with their status and nothing written, in
English and Chinese."""

from __future__ import annotations

from html import unescape

import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.container import AppContainer
from tests.api_support import api_client
from tests.portfolio.support import AS_OF, FIXTURES

ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}


@pytest.fixture
def client(app_container: AppContainer) -> TestClient:
    return api_client(app_container)


def test_watchlists_page_adds_and_removes(client: TestClient, app_container: AppContainer) -> None:
    empty = client.get("/watchlists")
    assert empty.status_code == 200 and 'id="watchlists-none"' in empty.text
    added = client.post("/watchlists", data={"name": "core", "symbols": "600001, 示例地产 AAPL"})
    assert added.status_code == 200 and added.url.path == "/watchlists"
    assert app_container.portfolio.watchlists.symbols("core") == ["600001.SH", "000002.SZ", "AAPL"]
    assert 'href="/?symbol=600001.SH"' in added.text and 'href="/data/000002.SZ"' in added.text
    assert 'data-suggest="/symbols/suggest" data-suggest-multi' in added.text
    refused = client.post("/watchlists", data={"name": "core", "symbols": "AAPL ZZZZ"}, headers=ZH)
    assert refused.status_code == 404
    assert "不对应库中唯一的证券" in unescape(refused.text) and 'data-code="UNKNOWN_SYMBOL"' in refused.text
    client.post("/watchlists/core/remove", data={"symbol": "000002.SZ"})
    assert app_container.portfolio.watchlists.symbols("core") == ["600001.SH", "AAPL"]
    client.post("/watchlists/core/remove", data={})
    assert app_container.portfolio.watchlists.lists() == []


def test_holdings_page_sets_imports_and_refuses_a_damaged_file(
    client: TestClient, app_container: AppContainer
) -> None:
    saved = client.post(
        "/holdings",
        data={"symbol": "示例银行", "quantity": "1,000", "cost": "9.5", "account": "main", "opened": ""},
    )
    assert saved.status_code == 200
    with (FIXTURES / "generic.csv").open("rb") as handle:
        imported = client.post("/holdings/import", files={"file": ("generic.csv", handle)})
    assert imported.status_code == 200 and 'id="holdings-imported"' in imported.text
    page = client.get("/holdings", params={"as_of": AS_OF.isoformat()})
    assert page.text.count("<tr data-symbol=") == 3
    assert 'data-figure="market_value"' in page.text and "CNY" in page.text and "USD" in page.text
    zh = client.get("/holdings", params={"as_of": AS_OF.isoformat()}, headers=ZH).text
    assert "浮动盈亏" in zh and "元" in zh
    bad = b"symbol,quantity,cost_price\n600001.SH,1,1\n000002.SZ,x,1\n"
    refused = client.post(
        "/holdings/import", files={"file": ("bad.csv", bad)}, data={"replace": "1"}, headers=ZH
    )
    assert refused.status_code == 400
    assert 'data-line="3"' in refused.text and "文件第" in unescape(refused.text)
    assert len(app_container.portfolio.holdings.stored()) == 3
    edit = client.get("/holdings", params={"edit": "AAPL", "account": "us"})
    assert 'value="150.25"' in edit.text
    client.post("/holdings/remove", data={"symbol": "AAPL", "account": "us"})
    assert {p.symbol for p in app_container.portfolio.holdings.stored()} == {"600001.SH", "000002.SZ"}
    assert client.get("/holdings", params={"as_of": "2024-02-30"}).status_code == 400
