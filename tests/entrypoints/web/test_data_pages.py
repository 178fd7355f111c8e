"""The data pages over HTTP: coverage with its filter, one symbol's detail, upload import (all or nothing,
the CLI's importers), sync as a job with live progress and per-dataset failures, and the REST twin.

A real app and SQLite store (600001.SH 示例银行 and 000002.SZ 示例地产, 300 business days to
2024-06-28); syncs run on the app's job executor against the provider test doubles of the SDKs
(tests/data_engineering/provider_fakes.py): `down=True` fails every call like an unreachable host.
"""

from __future__ import annotations

import json
import re
import threading
import time
from html import unescape
from pathlib import Path

import pandas as pd
import pytest
from fastapi.testclient import TestClient

from stockdesk.data_engineering.infrastructure.providers.akshare_provider import AkShareProvider
from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from tests.api_support import api_client
from tests.browser.served_web import SECOND_SYMBOL, add_second_symbol
from tests.coordinator.support import SYMBOL, pipeline
from tests.data_engineering.provider_fakes import FAST, FixtureAkShare, fast_limiter, no_sleep
from tests.entrypoints.web.lab_support import events, slot_taken

FIXTURES = Path(__file__).resolve().parents[2] / "data_engineering" / "fixtures"
ACME = FIXTURES / "yfinance" / "ACME_historical_data.csv"
TUSHARE_DAILY = FIXTURES / "tushare" / "daily_600001_SH_20240101_20240110.csv"
INTRADAY = FIXTURES / "intraday" / "AAPL_5m_yfinance.csv"
NEWS = FIXTURES / "news" / "generic_600001_news.csv"
ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}
FINISHED = ("completed", "partial", "failed", "cancelled", "interrupted")


@pytest.fixture
def container(settings: Settings) -> AppContainer:
    built, _, _ = pipeline(settings)
    add_second_symbol(built)
    return built


@pytest.fixture
def client(container: AppContainer) -> TestClient:
    return api_client(container)


def providers(container: AppContainer, sdk: FixtureAkShare) -> None:
    """The real AkShare provider over the SDK's test double (set before the sync service is built)."""
    provider = AkShareProvider(sdk, policy=FAST, limiter=fast_limiter(), sleep=no_sleep)
    container.data.__dict__["providers_by_market"] = {"CN": [provider]}


def bad_copy(tmp_path: Path, row: int, column: str, value: str) -> Path:
    """The ACME history with one cell replaced (row = 1-based data row; the file's line is row + 1)."""
    frame = pd.read_csv(ACME, dtype=str)
    frame.loc[row - 1, column] = value
    path = tmp_path / "ACME_bad.csv"
    frame.to_csv(path, index=False)
    return path


def upload(client: TestClient, path: Path, kind: str, **fields: str):  # type: ignore[no-untyped-def]
    with path.open("rb") as handle:
        return client.post("/data/import", data={"kind": kind, **fields}, files={"file": (path.name, handle)})


def wait_finished(client: TestClient, run_id: str) -> dict:
    """Poll the REST twin until the run has finished (the job runs on the executor's thread)."""
    deadline = time.monotonic() + 60.0
    while True:
        body = client.get(f"/api/v1/data/sync/{run_id}").json()
        if body["state"] in FINISHED or time.monotonic() > deadline:
            return body
        time.sleep(0.05)


def start_sync(client: TestClient, **form: str) -> str:
    data = {"market": "cn", "symbols": SYMBOL, "start": "2024-01-01", "end": "2024-01-31", **form}
    response = client.post("/data/sync", data=data, follow_redirects=False)
    assert response.status_code == 303, response.text
    assert re.fullmatch(r"/data/sync/[0-9a-f]{32}", response.headers["location"])
    return response.headers["location"].rsplit("/", 1)[1]


EVENT = re.compile(r"event: (?P<event>\w+)\n(?P<data>(?:data: .*\n)+)")


def stream_in_background(client: TestClient, url: str) -> tuple[threading.Thread, threading.Event, list[str]]:
    """Read an SSE stream in a thread: the event is set once its first message has arrived; the list
    gets the whole text when the stream ends."""
    first = threading.Event()
    text: list[str] = [""]

    def read() -> None:
        with client.stream("GET", url) as response:
            for chunk in response.iter_text():
                text[0] += chunk
                if "\n\n" in text[0]:
                    first.set()
        first.set()

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread, first, text


# ---- coverage -----------------------------------------------------------------------------------
def test_the_data_page_lists_each_symbols_date_ranges_and_the_filter_narrows_it(client: TestClient) -> None:
    page = client.get("/data")
    assert page.status_code == 200
    rows = re.findall(r'<tr data-symbol="([^"]+)">', page.text)
    assert rows == [SECOND_SYMBOL, SYMBOL]
    nowrap = '<span style="white-space: nowrap">{}</span>'
    assert f"{nowrap.format('2023-05-08')} – {nowrap.format('2024-06-28')}" in page.text
    assert "示例银行" in page.text and "Symbols shown: 2" in page.text
    assert page.text.count('data-dataset="bars" data-rows="300"') == 2
    assert page.text.count('data-gaps="0"') == 2  # two symbols of one market: gaps can be told
    assert 'for="data-q"' in page.text and 'for="data-market"' in page.text

    filtered = client.get("/data", params={"q": "银行"})
    assert re.findall(r'<tr data-symbol="([^"]+)">', filtered.text) == [SYMBOL]
    none = client.get("/data", params={"market": "us"})
    assert 'id="coverage-none"' in none.text and "No stored symbol matches" in none.text

    fragment = client.get("/data", params={"q": "地产"}, headers={"HX-Request": "true"})
    assert fragment.status_code == 200 and "<html" not in fragment.text
    assert re.findall(r'<tr data-symbol="([^"]+)">', fragment.text) == [SECOND_SYMBOL]


def test_a_symbols_page_shows_its_summary_coverage_and_sync_marks(
    client: TestClient, container: AppContainer
) -> None:
    container.data.sync_state.mark_done(SYMBOL, "bars", pd.Timestamp("2024-06-28").date())
    page = client.get(f"/data/{SYMBOL.lower()}")
    assert page.status_code == 200
    assert '<h1 translate="no">600001.SH · 示例银行</h1>' in page.text
    assert re.search(
        r'data-dataset="bars">\s*<th scope="row">Daily bars</th>\s*<td class="num">300</td>', page.text
    )
    assert "2022-06-30 – 2024-03-31" in page.text  # the eight quarters' periods
    assert "2024-06-28" in page.text and "All 8 report periods" in page.text
    assert client.get("/data").text.count("2024-06-28<") >= 1  # synced-through shown in the list


def test_an_unknown_symbol_is_a_404_page_and_a_malformed_one_a_400(client: TestClient) -> None:
    missing = client.get("/data/NOPE")
    assert missing.status_code == 404 and 'data-code="STOCK_NOT_FOUND"' in missing.text
    bad = client.get("/data/%21%21")
    assert bad.status_code == 400 and 'data-code="INVALID_SYMBOL"' in bad.text


def test_a_symbols_page_is_as_of_its_data_end_unless_asked_and_a_bad_date_is_a_400(
    client: TestClient,
) -> None:
    """Not today's clock: without `as_of` the figures are those of the newest stored bar, labelled
    so; an asked date is used and labelled as-of; `?as_of=2019-13-45` is refused, not ignored."""
    plain = client.get(f"/data/{SYMBOL}").text
    assert re.search(r"Data through</\w+>\s*<\w+[^>]*>2024-06-28<", plain), "the newest bar's date"
    asked = client.get(f"/data/{SYMBOL}", params={"as_of": "2024-03-29"}).text
    assert re.search(r"As of</\w+>\s*<\w+[^>]*>2024-03-29<", asked)
    assert "数据截至" in client.get(f"/data/{SYMBOL}", headers=ZH).text
    bad = client.get(f"/data/{SYMBOL}", params={"as_of": "2019-13-45"})
    assert bad.status_code == 400 and 'data-code="INVALID_DATE"' in bad.text


def test_a_symbols_page_links_to_analyze_it_and_to_its_sessions(client: TestClient) -> None:
    page = client.get(f"/data/{SYMBOL}").text
    assert f'href="/?symbol={SYMBOL}"' in page and f'href="/sessions?symbol={SYMBOL}"' in page
    form = client.get("/", params={"symbol": SYMBOL}).text  # the analysis form, filled in
    assert re.search(rf'id="symbol" name="symbol" type="text" value="{re.escape(SYMBOL)}"', form)


def test_a_hole_of_more_than_ten_trading_days_is_listed_with_its_dates(
    client: TestClient, container: AppContainer
) -> None:
    """The second symbol loses 15 trading days of bars inside its range (its peer keeps them): the
    page lists that run with its first and last day, not only a count of missing days."""
    from sqlalchemy import text

    with container.database.session() as session:
        session.execute(
            text("DELETE FROM daily_bars WHERE symbol = :s AND trade_date BETWEEN :a AND :b"),
            {"s": SECOND_SYMBOL, "a": "2024-03-01", "b": "2024-03-21"},
        )
    page = client.get(f"/data/{SECOND_SYMBOL}").text
    assert "Gaps longer than 10 trading days:" in page
    assert re.search(r"<code>2024-03-01</code> – <code>2024-03-21</code> \(15 trading days\)", page)
    assert "long-gaps" not in client.get(f"/data/{SYMBOL}").text  # no hole, no list


def chart_specs(html: str) -> list[dict]:
    return [json.loads(unescape(raw)) for raw in re.findall(r'data-spec="([^"]+)"', html)]


def test_a_symbols_latest_figures_are_labelled_with_units_in_both_languages(client: TestClient) -> None:
    """Issue 32: no "Volume 7647805.0" or "PB 6.1876": each figure has its label and unit from the
    one figures table (shared.figures), in the page's language."""
    en = client.get(f"/data/{SYMBOL}").text
    shown = dict(re.findall(r'<div data-figure="([a-z_]+)"><dt>[^<]+</dt><dd>([^<]+)</dd></div>', en))
    assert re.fullmatch(r"[\d.,]+[KMB]? shares", shown["volume"]), shown["volume"]
    assert re.fullmatch(r"[\d.,]+[KMB]? CNY", shown["amount"]), shown["amount"]
    assert shown["close"] == "20.00 CNY" and shown["pb"] == "2.00×" and shown["pe_ttm"] == "30.00×"
    assert shown["roe"] == "12.50%" and re.fullmatch(r"[\d.,]+[KMB] CNY", shown["market_cap"])
    assert '<div data-figure="volume"><dt>Volume</dt>' in en and "<dt>P/B</dt>" in en
    assert "<dt>PB</dt>" not in en and "<dt>PE TTM</dt>" not in en  # the old unlabelled names
    assert not re.search(r"<dd>\d+\.\d</dd>", en), "a raw float without its unit"
    zh = client.get(f"/data/{SYMBOL}", headers=ZH).text
    shown_zh = dict(re.findall(r'<div data-figure="([a-z_]+)"><dt>[^<]+</dt><dd>([^<]+)</dd></div>', zh))
    assert re.fullmatch(r"[\d.,]+(万|亿)?股", shown_zh["volume"]), shown_zh["volume"]
    assert shown_zh["close"] == "20.00元" and "<dt>成交量</dt>" in zh and "<dt>市净率</dt>" in zh


def test_a_symbols_page_draws_price_with_moving_averages_and_valuation_with_its_median(
    client: TestClient,
) -> None:
    """The research charts the session page draws (one chart module), for the page's as-of date."""
    page = client.get(f"/data/{SYMBOL}", params={"as_of": "2024-03-29"}).text
    specs = chart_specs(page)
    assert [s["id"] for s in specs] == ["price", "valuation"]
    price, valuation = specs
    assert [s["name"] for s in price["panels"][0]["series"]] == ["close", "MA20", "MA60", "MA120"]
    assert price["panels"][1]["series"][0]["name"] == "volume"
    assert price["x"][-1] == "2024-03-29" and valuation["x"][-1] == "2024-03-29"
    assert {p["lines"][0]["style"] for p in valuation["panels"]} == {"median"}
    assert {p["series"][0]["name"] for p in valuation["panels"]} == {"PE (TTM)", "PB"}
    assert "Up to 2024-03-29" in page


def test_the_data_pages_charts_read_nothing_after_their_as_of_date(
    client: TestClient, container: AppContainer
) -> None:
    """Point in time: bars and valuations after the as-of date are changed (prices tripled, a new
    adjustment factor, PE and PB multiplied); the charts of the earlier date do not move."""
    from sqlalchemy import text

    before = chart_specs(client.get(f"/data/{SYMBOL}", params={"as_of": "2024-03-29"}).text)
    latest = chart_specs(client.get(f"/data/{SYMBOL}").text)
    with container.database.session() as session:
        session.execute(
            text(
                "UPDATE daily_bars SET close = close * 3, high = high * 3, low = low * 3, open = open * 3,"
                " volume = volume * 7, adj_factor = 2.0 WHERE symbol = :s AND trade_date > :d"
            ),
            {"s": SYMBOL, "d": "2024-03-29"},
        )
        session.execute(
            text(
                "UPDATE daily_valuations SET pe_ttm = pe_ttm * 5, pb = pb * 5"
                " WHERE symbol = :s AND trade_date > :d"
            ),
            {"s": SYMBOL, "d": "2024-03-29"},
        )
    assert chart_specs(client.get(f"/data/{SYMBOL}", params={"as_of": "2024-03-29"}).text) == before
    assert chart_specs(client.get(f"/data/{SYMBOL}").text) != latest  # the change is real and visible


# ---- upload ---------------------------------------------------------------------------------------
def test_a_good_yahoo_csv_upload_imports_and_reports_its_rows_per_table(
    client: TestClient, container: AppContainer
) -> None:
    before = container.data.repository.counts()
    form = client.get("/data/import")
    assert form.status_code == 200 and 'enctype="multipart/form-data"' in form.text
    for label in ('for="imp-kind"', 'for="imp-file"', 'for="imp-symbol"'):
        assert label in form.text

    answer = upload(client, ACME, "yfinance-csv", symbol="acme")
    assert answer.status_code == 200, answer.text
    assert 'id="import-result"' in answer.text and 'id="import-rejected"' not in answer.text
    written = dict(
        re.findall(
            r'<tr data-table="(\w+)"><th scope="row">[^<]+</th><td class="num">(\d+)</td>', answer.text
        )
    )
    after = container.data.repository.counts()
    assert int(written["bars"]) == after["bars"] - before["bars"] > 0
    assert after["securities"] == before["securities"] + 1
    assert "ACME" in client.get("/data").text
    assert not any((container.settings.home / "uploads").iterdir())  # the upload was deleted

    again = upload(client, ACME, "yfinance-csv", symbol="ACME")
    assert again.status_code == 200 and container.data.repository.counts() == after  # reruns change nothing
    assert re.search(r'<tr data-table="bars">.*?<td class="num">0</td></tr>', again.text)  # no new rows


def test_a_csv_with_one_bad_row_is_refused_with_its_line_and_nothing_is_imported(
    client: TestClient, container: AppContainer, tmp_path: Path
) -> None:
    before = container.data.repository.counts()
    answer = upload(client, bad_copy(tmp_path, 4, "Low", "-25.1"), "yfinance-csv", symbol="ACME")
    assert answer.status_code == 400
    assert 'id="import-rejected"' in answer.text and "Nothing was imported." in answer.text
    assert '<tr data-line="5">' in answer.text and "line 5" in answer.text  # data row 4 is line 5
    assert "price must be positive" in answer.text
    assert container.data.repository.counts() == before
    assert "ACME" not in client.get("/data").text
    assert 'value="ACME"' in answer.text  # the form keeps what was typed


def test_upload_form_errors_are_400_with_the_reason(client: TestClient, container: AppContainer) -> None:
    before = container.data.repository.counts()
    no_symbol = upload(client, ACME, "yfinance-csv")
    assert no_symbol.status_code == 400 and 'data-code="SYMBOL_REQUIRED"' in no_symbol.text
    bad_kind = upload(client, ACME, "excel")
    assert bad_kind.status_code == 400 and 'data-code="IMPORT_KIND"' in bad_kind.text
    no_file = client.post("/data/import", data={"kind": "news-csv", "symbol": SYMBOL})
    assert no_file.status_code == 400 and 'data-code="FILE_REQUIRED"' in no_file.text
    bad_symbol = upload(client, ACME, "yfinance-csv", symbol="no such symbol!")
    assert bad_symbol.status_code == 400 and 'data-code="INVALID_SYMBOL"' in bad_symbol.text
    assert container.data.repository.counts() == before


def test_a_tushare_file_keeps_its_name_and_other_importers_report_their_facts(
    client: TestClient, container: AppContainer
) -> None:
    tushare = upload(client, TUSHARE_DAILY, "tushare-csv")
    assert tushare.status_code == 200, tushare.text
    assert '<tr data-table="bars">' in tushare.text

    news = upload(client, NEWS, "news-csv", symbol=SYMBOL)
    assert news.status_code == 200, news.text
    assert "Rows read" in news.text and '<tr data-table="news">' in news.text

    bars_5m = upload(client, INTRADAY, "intraday-csv", symbol="AAPL")
    assert bars_5m.status_code == 200, bars_5m.text
    assert "New bars" in bars_5m.text and container.data.repository.count_intraday_bars("AAPL") > 0


def test_an_intraday_file_with_a_bad_line_names_that_line(
    client: TestClient, container: AppContainer, tmp_path: Path
) -> None:
    lines = INTRADAY.read_text(encoding="utf-8").splitlines()
    header_lines = next(i for i, line in enumerate(lines) if line[:1].isdigit())
    broken = lines[:]
    cells = broken[header_lines + 2].split(",")
    cells[1] = "not a price"
    broken[header_lines + 2] = ",".join(cells)
    path = tmp_path / "AAPL_broken.csv"
    path.write_text("\n".join(broken) + "\n", encoding="utf-8")
    answer = upload(client, path, "intraday-csv", symbol="AAPL")
    assert answer.status_code == 400
    assert f'<tr data-line="{header_lines + 3}">' in answer.text  # the file's own line number
    assert container.data.repository.count_intraday_bars("AAPL") == 0


def test_the_upload_page_speaks_chinese(client: TestClient) -> None:
    page = client.get("/data/import", headers=ZH)
    assert "导入文件" in page.text and "文件类型" in page.text
    assert "缺失交易日" in client.get("/data", headers=ZH).text


# ---- sync -----------------------------------------------------------------------------------------
def test_a_sync_with_unreachable_providers_shows_each_datasets_failure_not_a_crash(
    client: TestClient, container: AppContainer
) -> None:
    providers(container, FixtureAkShare(down=True))
    run_id = start_sync(client)
    body = wait_finished(client, run_id)
    assert body["state"] == "failed" and body["done"] == body["total"] == 1
    symbol = body["symbols"][0]
    assert symbol["state"] == "failed"
    assert {o["dataset"]: o["status"] for o in symbol["outcomes"]}["bars"] == "failed"

    page = client.get(f"/data/sync/{run_id}")
    assert page.status_code == 200 and 'data-state="failed"' in page.text
    assert "sse-connect" not in page.text  # finished: nothing live to follow
    assert re.search(r'data-dataset="bars" data-status="failed"', page.text)
    failures = re.findall(r'<li data-symbol="600001.SH" data-dataset="(\w+)">.*?Failed to resolve', page.text)
    assert {"bars", "valuations"} <= set(failures)
    assert "Failures" in page.text
    listed = client.get("/data/sync")
    assert f"/data/sync/{run_id}" in listed.text  # the recent runs


def test_a_sync_writes_what_the_provider_answers_and_the_data_page_shows_the_sync(
    client: TestClient, container: AppContainer
) -> None:
    providers(container, FixtureAkShare())
    run_id = start_sync(client)
    body = wait_finished(client, run_id)
    assert body["state"] == "completed", body
    statuses = {o["dataset"]: o["status"] for o in body["symbols"][0]["outcomes"]}
    assert statuses["bars"] == "written"
    page = client.get(f"/data/sync/{run_id}")
    assert re.search(r'data-dataset="bars" data-status="written">written <small', page.text)
    assert "2024-01-31" in client.get(f"/data/{SYMBOL}").text  # synced through the window's end


def test_a_queued_sync_is_followed_live_over_sse_until_it_finishes(
    client: TestClient, container: AppContainer
) -> None:
    providers(container, FixtureAkShare(unreachable=("600001",)))
    with slot_taken(container.jobs, "sync") as release:
        run_id = start_sync(client)
        page = client.get(f"/data/sync/{run_id}")
        assert f'sse-connect="/data/sync/{run_id}/events"' in page.text and 'data-state="queued"' in page.text
        assert f'data-done-url="/data/sync/{run_id}"' in page.text
        thread, first, text = stream_in_background(client, f"/data/sync/{run_id}/events")
        assert first.wait(30)  # the stream has sent the queued run before it may start
        release.set()
        thread.join(60)
    found = [(m["event"], m["data"]) for m in EVENT.finditer(text[0])]
    assert found[-1] == ("done", "data: finished\n")
    progress = [data for event, data in found if event == "progress"]
    assert 'data-state="queued"' in progress[0] and 'data-state="failed"' in progress[-1]
    assert "Failed to resolve" in progress[-1]
    assert events(client, f"/data/sync/{run_id}/events")[-1] == ("done", "finished")  # finished: ends at once


def test_a_queued_sync_can_be_cancelled_before_it_fetches_anything(
    client: TestClient, container: AppContainer
) -> None:
    """The run page's Cancel, in the job panel, posts to the general jobs route, which stops the run
    through the job kinds and comes back to the page: cancelling, no Cancel any more."""
    sdk = FixtureAkShare()
    providers(container, sdk)
    with slot_taken(container.jobs, "sync"):
        run_id = start_sync(client)
        jobs = client.get("/jobs")
        assert f'data-job="{run_id}" data-kind="sync" data-state="queued"' in jobs.text
        assert f'href="/data/sync/{run_id}"' in jobs.text
        page = client.get(f"/data/sync/{run_id}").text
        cancel = f"/jobs/{run_id}/cancel?back=/data/sync/{run_id}"
        assert f'<section class="card job-panel" id="progress-panel" data-job="{run_id}"' in page
        assert f'<form method="post" action="{cancel}">' in page and "hx-post" not in page
        cancelled = client.post(cancel, follow_redirects=False)
        assert cancelled.status_code == 303 and cancelled.headers["location"] == f"/data/sync/{run_id}"
        back = client.get(f"/data/sync/{run_id}").text
        assert 'data-state="cancelling"' in back and "Stopping after the symbol in hand" in back
        assert f'action="{cancel}"' not in back
        assert "处理完当前标的后停止" in client.get(f"/data/sync/{run_id}", headers=ZH).text
    body = wait_finished(client, run_id)
    assert body["state"] == "cancelled" and sdk.calls == []
    assert body["symbols"][0]["state"] == "not-run"
    late = client.post(cancel, follow_redirects=False)  # ended meanwhile: the page shows it as it is
    assert late.status_code == 303 and late.headers["location"] == f"/data/sync/{run_id}"


def test_the_old_sync_cancel_route_redirects_to_the_jobs_route_and_still_stops_it(
    client: TestClient, container: AppContainer
) -> None:
    sdk = FixtureAkShare()
    providers(container, sdk)
    with slot_taken(container.jobs, "sync"):
        run_id = start_sync(client)
        moved = client.post(f"/data/sync/{run_id}/cancel", follow_redirects=False)
        assert moved.status_code == 307
        assert moved.headers["location"] == f"/jobs/{run_id}/cancel?back=/data/sync/{run_id}"
        followed = client.post(f"/data/sync/{run_id}/cancel")  # 307, then the jobs route's 303: the page
        assert followed.status_code == 200 and 'data-state="cancelling"' in followed.text
    assert wait_finished(client, run_id)["state"] == "cancelled" and sdk.calls == []


def test_refused_sync_forms_are_400_and_start_nothing(client: TestClient, container: AppContainer) -> None:
    cases = [
        ({"market": "mars"}, "MARKET"),
        ({"symbols": "AAPL"}, "INVALID_SYMBOL"),
        ({"symbols": " , "}, "SYMBOL_REQUIRED"),
        ({"start": "2024-02-01", "end": "2024-01-01"}, "INVALID_DATE"),
        ({"start": "2024-13-01"}, "INVALID_DATE"),
    ]
    for form, code in cases:
        data = {"market": "cn", "symbols": SYMBOL, "start": "2024-01-01", "end": "2024-01-31", **form}
        answer = client.post("/data/sync", data=data, follow_redirects=False)
        assert answer.status_code == 400, (form, answer.text)
        assert f'data-code="{code}"' in answer.text, form
    assert container.jobs.active() == [] and container.sync_runs.recent() == []
    assert client.get("/data/sync/nope").status_code == 404
    assert client.post("/data/sync/nope/cancel").status_code == 404


def test_the_rest_twin_starts_and_reports_a_sync(client: TestClient, container: AppContainer) -> None:
    providers(container, FixtureAkShare(down=True))
    started = client.post(
        "/api/v1/data/sync",
        json={"market": "cn", "symbols": [SYMBOL], "start": "2024-01-01", "end": "2024-01-31"},
    )
    assert started.status_code == 202, started.text
    run_id = started.json()["run_id"]
    body = wait_finished(client, run_id)
    reasons = [f["reason"] for f in body["symbols"][0]["failures"]]
    assert body["state"] == "failed" and any("Failed to resolve" in r for r in reasons)
    assert client.get("/api/v1/data/sync/nope").json()["error"]["code"] == "SYNC_RUN_NOT_FOUND"
    bad = client.post("/api/v1/data/sync", json={"market": "cn", "symbols": ["AAPL"]})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "INVALID_SYMBOL"
    schema = client.get("/api/v1/openapi.json").json()["paths"]
    assert {"202", "400", "422", "429"} <= set(schema["/api/v1/data/sync"]["post"]["responses"])
    assert "404" in schema["/api/v1/data/sync/{run_id}"]["get"]["responses"]


def test_a_rest_sync_of_5_minute_bars_shows_that_dataset_on_its_page(
    client: TestClient, container: AppContainer
) -> None:
    providers(container, FixtureAkShare())
    started = client.post(
        "/api/v1/data/sync",
        json={
            "market": "cn",
            "symbols": [SYMBOL],
            "start": "2024-12-27",
            "end": "2024-12-31",
            "datasets": ["bars_5m"],
        },
    )
    assert started.status_code == 202, started.text
    assert started.json()["datasets"] == ["bars_5m"]
    body = wait_finished(client, started.json()["run_id"])
    assert [(o["dataset"], o["status"], o["rows"]) for o in body["symbols"][0]["outcomes"]] == [
        ("bars_5m", "written", 24)
    ]
    page = client.get(f"/data/sync/{body['run_id']}")
    assert re.findall(r'data-dataset="(\w+)" data-status', page.text) == ["bars_5m"]  # only what it fetched
    assert '<th scope="col">5-minute bars</th>' in page.text
    assert '<th scope="col">5 分钟线</th>' in client.get(f"/data/sync/{body['run_id']}", headers=ZH).text
