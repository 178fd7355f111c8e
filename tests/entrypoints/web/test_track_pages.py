"""The Track record page over HTTP: the ledger's entries scored, in English and Chinese; bad input."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time

import pytest
from fastapi.testclient import TestClient
from markupsafe import escape

from stockdesk.coordinator.application import ResearchRequest
from stockdesk.entrypoints.container import AppContainer
from stockdesk.evaluation.domain.track import TrackConfig
from stockdesk.ledger.application import LedgerService, VerdictRecord
from stockdesk.ledger.infrastructure.persistence.ledger_store import SqlLedgerStore
from stockdesk.shared.config import Settings
from stockdesk.shared.exports import chromium_path
from tests.api_support import api_client
from tests.coordinator.support import AS_OF, SYMBOL, pipeline

ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}
LIVE_DAY = date(2024, 3, 1)


@pytest.fixture
def container(settings: Settings) -> AppContainer:
    built, _, _ = pipeline(settings)
    built.coordinator.service.run(
        ResearchRequest(symbol=SYMBOL, as_of=AS_OF, rules_only=True)
    )  # retrospective
    made = datetime.combine(LIVE_DAY, time(20), tzinfo=UTC)  # live: made the evening of its as_of
    LedgerService(SqlLedgerStore(built.database), clock=lambda: made).append(
        VerdictRecord(
            entry_id="live-1",
            symbol=SYMBOL,
            as_of=LIVE_DAY,
            mode="rules",
            model="rules",
            action="BUY",
            confidence=0.6,
            probability_up=0.6,
            verdict={"action": "BUY"},
            inputs_hash="0" * 64,
        )
    )
    return built


@pytest.fixture
def client(container: AppContainer) -> TestClient:
    return api_client(container)


def test_the_page_shows_the_live_headline_scores_and_charts(
    client: TestClient, container: AppContainer
) -> None:
    page = client.get("/track")
    assert page.status_code == 200, page.text
    text = page.text
    assert 'href="/track"' in text and "Track record" in text
    report = container.evaluation.track.run(TrackConfig())
    live20 = report.live["all"]["20"]
    assert live20["matured"] == 1
    assert (
        "This desk&#39;s 1 matured live verdicts at 20 days" in text or "This desk's 1 matured live" in text
    )
    assert "Brier skill undefined: all 1 calibrated verdicts had the same outcome." in text  # one outcome
    assert "1 retrospective verdicts" in text
    assert 'id="kind-live"' in text and 'id="kind-retrospective"' in text
    assert "uncalibrated" in text  # the retrospective rules verdict states no probability
    assert text.count('class="chart"') == 2  # the live reliability diagram and the equity curve


def test_the_page_speaks_chinese(client: TestClient) -> None:
    page = client.get("/track", headers=ZH)
    assert page.status_code == 200 and "业绩记录" in page.text and "实时裁决" in page.text
    assert 'format=pdf" download>PDF 报告</a>' in page.text


def test_the_pdf_download_is_the_track_report_printed(client: TestClient) -> None:
    html = client.get("/api/v1/track", params={"format": "html", "horizons": "5,20"})
    assert html.status_code == 200 and html.headers["content-type"].startswith("text/html")
    assert "<svg" in html.text
    pdf = client.get("/api/v1/track", params={"format": "pdf", "horizons": "5,20"})
    if chromium_path() is None:
        assert pdf.status_code == 503 and pdf.json()["error"]["code"] == "PDF_UNAVAILABLE"
        return
    assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
    assert pdf.headers["content-disposition"] == 'attachment; filename="track-record.pdf"'
    assert pdf.content.startswith(b"%PDF")


def test_a_mode_filter_and_bad_input(client: TestClient) -> None:
    full = client.get("/track", params={"mode": "full"})
    assert full.status_code == 200 and "No matured live verdicts at 20 days yet." in full.text
    assert 'href="/api/v1/track?horizons=5%2C20%2C60&amp;mode=full&amp;format=pdf" download' in full.text
    bad = client.get("/track", params={"horizons": "5,x"})
    assert bad.status_code == 400 and "BAD_HORIZONS" in bad.text
    assert client.get("/track", params={"mode": "llm"}).status_code == 400


def test_a_session_page_shows_the_desks_one_line_track_record(
    client: TestClient, container: AppContainer
) -> None:
    [summary] = container.coordinator.service.list().items
    page = client.get(f"/sessions/{summary.id}")
    assert page.status_code == 200
    line = str(escape(container.evaluation.track.headline()))  # the report's line, worded by code
    assert line.startswith("this desk&#39;s 1 matured live verdicts at 20 days: hit 0%")
    # the page words the same figures from the catalogue, in its own language
    shown = re.search(r'<p class="muted" id="track-record">(.*?)</p>', page.text, re.S)
    assert shown and "This desk&#39;s 1 matured live verdicts at 20 days: hit 0%" in shown.group(1)
    chinese = client.get(f"/sessions/{summary.id}", headers=ZH).text
    assert "本研究台 1 个已到期的实时裁决（20 日）：命中率 0%" in chinese
