"""REST routes of the store through the real app and a real SQLite store: paging, as_of, errors."""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd
import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.api import API_PREFIX
from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from tests.api_support import api_client
from tests.data_engineering import sample_store

STOCKS = f"{API_PREFIX}/stocks"
DAYS = pd.bdate_range("2024-01-02", periods=30)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    container = AppContainer(settings)
    service = container.data.import_service
    service.import_frames("securities", {"securities": sample_store.securities()})
    service.import_frames(
        "600519.SH",
        {
            "bars": sample_store.bars(days=DAYS),
            "valuations": sample_store.valuations(days=DAYS),
            "financials": sample_store.financials(),
        },
    )
    service.import_frames("bars_5m", {"bars_5m": sample_store.bars_5m()})
    with api_client(container) as client:
        yield client
    container.close()


def test_stock_returns_security_and_coverage_as_of(client: TestClient) -> None:
    body = client.get(f"{STOCKS}/sh600519", params={"as_of": "2024-01-10"}).json()
    assert body["symbol"] == "600519.SH" and body["as_of"] == "2024-01-10"
    assert body["security"]["name"] == "贵州茅台"
    assert body["security"]["provider_codes"] == {"tushare": "600519.SH"}
    assert body["bars"] == {"count": 7, "first": "2024-01-02", "last": "2024-01-10"}
    assert body["valuations"]["count"] == 7
    assert body["latest_bar"]["trade_date"] == "2024-01-10"
    assert body["latest_financial"]["end_date"] == "2023-09-30"  # 2023 annual not announced yet


def test_bars_page_through_the_window_up_to_as_of(client: TestClient) -> None:
    params = {"as_of": "2024-02-01", "start": "2024-01-05", "limit": 10, "offset": 0}
    first = client.get(f"{STOCKS}/600519.SH/bars", params=params).json()
    days = [
        d.strftime("%Y-%m-%d") for d in DAYS if pd.Timestamp("2024-01-05") <= d <= pd.Timestamp("2024-02-01")
    ]
    assert (first["symbol"], first["as_of"], first["total"]) == ("600519.SH", "2024-02-01", len(days))
    assert (first["limit"], first["offset"]) == (10, 0)
    assert [b["trade_date"] for b in first["items"]] == days[:10]
    second = client.get(f"{STOCKS}/600519.SH/bars", params={**params, "offset": 10}).json()
    assert [b["trade_date"] for b in second["items"]] == days[10:20]
    assert first["items"][0]["volume"] > 0 and first["items"][0]["close"] > 0


def test_valuations_respect_end_and_as_of(client: TestClient) -> None:
    body = client.get(
        f"{STOCKS}/600519.SH/valuations", params={"as_of": "2024-01-08", "end": "2024-03-01"}
    ).json()
    days = ["2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05", "2024-01-08"]
    assert [v["trade_date"] for v in body["items"]] == days
    assert [v["is_derived"] for v in body["items"]] == [True, False, True, False, True]
    assert body["limit"] == 500 and body["total"] == 5


def test_financials_are_the_versions_known_at_as_of(client: TestClient) -> None:
    def eps(as_of: str, **params: str) -> list[tuple[str, float]]:
        body = client.get(f"{STOCKS}/600519.SH/financials", params={"as_of": as_of, **params}).json()
        return [(r["end_date"], r["eps"]) for r in body["items"]]

    assert eps("2024-04-10") == [("2023-12-31", 59.49), ("2023-09-30", 39.8)]
    assert eps("2024-07-01") == [("2024-03-31", 19.16), ("2023-12-31", 59.5), ("2023-09-30", 39.8)]
    assert eps("2024-07-01", start="2023-10-01", end="2023-12-31") == [("2023-12-31", 59.5)]
    body = client.get(f"{STOCKS}/600519.SH/financials", params={"as_of": "2024-07-01"}).json()
    assert body["items"][1]["extra"] == {"restated": True}


def test_5_minute_bars_are_paged_and_none_of_a_day_after_as_of(client: TestClient) -> None:
    def starts(**params: object) -> tuple[int, list[str]]:
        body = client.get(f"{STOCKS}/AAPL/bars_5m", params=params).json()
        return body["total"], [b["ts"] for b in body["items"]]

    friday = ["2024-03-08T09:30:00-05:00", "2024-03-08T09:35:00-05:00"]
    monday = ["2024-03-11T09:30:00-04:00", "2024-03-11T09:35:00-04:00", "2024-03-11T15:55:00-04:00"]
    assert starts(as_of="2024-03-08") == (2, friday)
    assert starts(as_of="2024-03-10", end="2024-12-31") == (2, friday)  # end is clipped to as_of
    assert starts(as_of="2024-03-11") == (5, friday + monday)
    assert starts(as_of="2024-03-11", start="2024-03-11", limit=2, offset=1) == (3, monday[1:])
    assert starts(as_of="2024-03-07") == (0, [])
    bar = client.get(f"{STOCKS}/AAPL/bars_5m", params={"as_of": "2024-03-11", "limit": 1}).json()["items"][0]
    assert bar["ts_utc"] == "2024-03-08T14:30:00Z" and bar["trade_date"] == "2024-03-08"
    assert (bar["interval"], bar["volume"], bar["amount"]) == ("5m", 82_000.0, None)
    a_share = client.get(f"{STOCKS}/600519.SH/bars_5m", params={"as_of": "2024-01-03"}).json()["items"]
    assert [b["ts"][11:16] for b in a_share] == ["09:30", "09:35", "09:40", "13:00"]
    assert a_share[0]["amount"] == pytest.approx(82_000 * 1452.37)


def test_stock_coverage_counts_5_minute_bars_as_of(client: TestClient) -> None:
    def coverage(as_of: str) -> dict:
        return client.get(f"{STOCKS}/AAPL", params={"as_of": as_of}).json()["bars_5m"]

    assert coverage("2024-03-08") == {
        "count": 2, "first": "2024-03-08T09:30:00-05:00", "last": "2024-03-08T09:35:00-05:00"
    }  # fmt: skip
    assert (
        coverage("2024-12-31")["count"] == 5 and coverage("2024-12-31")["last"] == "2024-03-11T15:55:00-04:00"
    )
    assert coverage("2024-03-07") == {"count": 0, "first": None, "last": None}


def test_unknown_symbol_is_404_stock_not_found(client: TestClient) -> None:
    for path in (
        "600999.SH",
        "600999.SH/bars",
        "600999.SH/valuations",
        "600999.SH/financials",
        "600999.SH/bars_5m",
    ):
        response = client.get(f"{STOCKS}/{path}")
        assert response.status_code == 404, path
        assert response.json()["error"]["code"] == "STOCK_NOT_FOUND"


@pytest.mark.parametrize(
    ("path", "params", "code"),
    [
        ("not-a-symbol!", {}, "INVALID_SYMBOL"),
        ("600519.SH/bars", {"as_of": "2024-13-45"}, "BAD_REQUEST"),
        ("600519.SH/valuations", {"start": "yesterday"}, "BAD_REQUEST"),
        ("600519.SH/bars", {"limit": 5001}, "BAD_REQUEST"),
        ("600519.SH/bars", {"offset": -1}, "BAD_REQUEST"),
        ("600519.SH/financials", {"start": "2024-02-01", "end": "2024-01-01"}, "INVALID_DATE_RANGE"),
        ("600519.SH/bars_5m", {"start": "2024-02-01", "end": "2024-01-01"}, "INVALID_DATE_RANGE"),
        ("600519.SH/bars_5m", {"as_of": "2024-02-30"}, "BAD_REQUEST"),
    ],
)
def test_bad_input_is_400_with_a_code(client: TestClient, path: str, params: dict, code: str) -> None:
    response = client.get(f"{STOCKS}/{path}", params=params)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
