"""Batch analyses over HTTP: the start form, its refusals, the live page, its SSE stream, the ranked index.

A real app over a populated SQLite store with the scripted LLM in each worker (as
tests/coordinator/test_batch_rest.py runs the REST route); the batch runs on the server's job
executor through the app's launcher, whose engine is threads here instead of Ray.
"""

from __future__ import annotations

import re
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from stockdesk.coordinator.application.batch_analysis import JOB_KIND
from stockdesk.coordinator.presentation.batch_jobs import BatchLauncher
from stockdesk.entrypoints.batch.analyze_work import AnalyzeSymbolsWork
from stockdesk.entrypoints.batch.launcher import server_batch_launcher
from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.web.i18n import catalog
from stockdesk.entrypoints.web.pages.batches_view import AS_OF_KEY, ERROR_KEYS
from stockdesk.entrypoints.web.pages.jobs_view import KNOWN_KINDS
from stockdesk.shared.config import Settings
from stockdesk.shared.tasks import ThreadEngine
from tests.api_support import api_client
from tests.coordinator.support import AS_OF, pipeline
from tests.coordinator.test_batch_analyze import scripted_llm
from tests.entrypoints.web.lab_support import events, read_events_in_background, slot_taken
from tests.research.support import populate_store

SYMBOLS = ["600001.SH", "600002.SH"]
ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}
EXPERTS = ["valuation_modeler", "technical_analyst", "financial_auditor"]


def threads_launcher(container: AppContainer, tmp_path: Path, workers: int = 2) -> BatchLauncher:
    """The server's launcher, its workers on threads with the scripted LLM instead of Ray."""
    settings = container.settings
    return replace(
        server_batch_launcher(container),
        make_work=lambda config: AnalyzeSymbolsWork(settings, config, llm=scripted_llm, distributed=False),
        make_engine=lambda: ThreadEngine(workers),
        out_root=lambda: tmp_path / "batches",
    )


def batch_app(settings: Settings, tmp_path: Path, workers: int = 2) -> tuple[TestClient, AppContainer]:
    """The app over two stored symbols (the real container, the scripted LLM), batches on threads."""
    container, _, _ = pipeline(settings)
    populate_store(container.database, SYMBOLS[1])
    return api_client(container, batches=threads_launcher(container, tmp_path, workers)), container


@pytest.fixture
def app(settings: Settings, tmp_path: Path) -> tuple[TestClient, AppContainer]:
    return batch_app(settings, tmp_path)


@pytest.fixture
def container(app: tuple[TestClient, AppContainer]) -> AppContainer:
    return app[1]


@pytest.fixture
def client(app: tuple[TestClient, AppContainer]) -> TestClient:
    return app[0]


def form(**fields: Any) -> dict[str, Any]:
    sent = {"symbols": ", ".join(SYMBOLS), "as_of": AS_OF.isoformat(), "experts": EXPERTS}
    return sent | {"debate": "bull-bear"} | fields


def start(client: TestClient, **fields: Any) -> str:
    response = client.post("/batches", data=form(**fields), follow_redirects=False)
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    assert re.fullmatch(r"/batches/[0-9a-f]+", location), location
    return location.removeprefix("/batches/")


def ended(container: AppContainer, job_id: str) -> None:
    """Wait until the executor lets the batch go (it runs on its thread); fails after 120 s."""
    deadline = time.monotonic() + 120.0
    while container.jobs.is_active(job_id):
        assert time.monotonic() < deadline, f"batch {job_id} still {container.jobs.state_of(job_id)}"
        time.sleep(0.05)


def test_the_form_offers_symbols_with_suggestions_date_experts_debate_and_budgets(client: TestClient) -> None:
    page = client.get("/batches")
    assert page.status_code == 200
    html = page.text
    assert 'action="/batches"' in html and 'data-suggest="/symbols/suggest" data-suggest-multi' in html
    assert 'name="as_of" type="date"' in html
    for name in ("valuation_modeler", "technical_analyst", "macro_intelligence", "catalyst_detective"):
        assert f'name="experts" value="{name}" checked' in html
    for mode in ("bull-bear", "panel", "skip"):
        assert f'name="debate" value="{mode}"' in html
    assert 'name="max_tokens"' in html and 'name="max_cost_usd"' in html
    assert 'href="/batches"' in html and ">Batches</a>" in html  # the nav link
    zh = client.get("/batches", headers=ZH).text
    assert "启动批量分析" in zh and ">批量分析</a>" in zh and "Start the batch" not in zh


def test_a_batch_started_from_the_form_is_followed_live_then_shows_its_ranked_index(
    client: TestClient, container: AppContainer
) -> None:
    jobs = container.jobs
    with slot_taken(jobs, JOB_KIND) as release:  # the batch waits, queued, behind the slot
        job_id = start(client)
        live = client.get(f"/batches/{job_id}").text
        assert f'sse-connect="/batches/{job_id}/events"' in live and 'data-state="queued"' in live
        assert f'action="/jobs/{job_id}/cancel?back=/batches/{job_id}"' in live
        assert 'id="batch-index"' not in live  # the index comes when the batch has ended
        listed = client.get("/jobs").text  # the jobs page names the kind and links the batch's page
        assert f'href="/batches/{job_id}"' in listed and "Batch analysis" in listed
        assert f'href="/batches/{job_id}"' in client.get("/batches").text
        reader, found = read_events_in_background(client, f"/batches/{job_id}/events")
        release.set()
        reader.join(120)
    ended(container, job_id)
    assert found and found[-1][0] == "done"
    assert any('id="batch-panel"' in data for kind, data in found if kind == "progress")

    page = client.get(f"/batches/{job_id}").text
    assert "sse-connect" not in page and 'data-state="done"' in page
    assert "2 of 2 symbols analysed, 0 failed, 0 left" in page
    rows = container.batch_analysis.rows(job_id)
    shown = re.findall(r'<tr data-symbol="([^"]+)" data-status="done" data-action="(BUY|HOLD|SELL)"', page)
    assert shown == [(r.symbol, r.action) for r in rows]  # the service's ranking, in its order
    for row in rows:
        assert row.session_id and f'href="/sessions/{row.session_id}"' in page
        if row.confidence is not None:
            assert f"{row.confidence * 100:.0f}%" in page
        assert container.coordinator.service.get(row.session_id).symbol == row.symbol
    assert "Ranked by action (BUY, HOLD, SELL) then by confidence" in page
    zh = client.get(f"/batches/{job_id}", headers=ZH).text
    assert "结论排名" in zh and "置信度" in zh

    again = start(client)  # the same form is the same batch: nothing is analysed twice
    assert again == job_id and not container.jobs.is_active(job_id)
    assert [r.session_id for r in container.batch_analysis.rows(job_id)] == [r.session_id for r in rows]


def test_the_form_choices_reach_the_batch(client: TestClient, container: AppContainer) -> None:
    job_id = start(client, experts=["technical_analyst"], debate="skip", max_tokens="500000")
    ended(container, job_id)
    job = container.batch_analysis.get(job_id)
    assert job.config["experts"] == ["technical_analyst"] and job.config["skip_debate"] is True
    assert job.config["symbols"] == SYMBOLS
    session = container.coordinator.service.get(container.batch_analysis.rows(job_id)[0].session_id or "")
    assert [e.value for e in session.experts] == ["technical_analyst"] and session.skip_debate
    page = client.get(f"/batches/{job_id}").text  # experts only: no verdict, said so
    assert page.count("no verdict") == 2 and "Skip the debate" in page and "Technical analyst" in page


REFUSED = [
    ({"symbols": " , "}, 400, "NO_SYMBOLS", "Enter at least one symbol.", "请至少输入一个标的"),
    ({"symbols": "600001.SH, ???"}, 400, "INVALID_SYMBOL", "Not a symbol: ???.", "不是有效的标的代码"),
    ({"symbols": "600001.SH, 999999.SH"}, 404, "UNKNOWN_SYMBOL", "Not in the store: 999999.SH.",
     "库中没有：999999.SH"),
    ({"as_of": ""}, 400, "AS_OF_REQUIRED", "Enter the as-of date.", "请输入分析日期"),
    ({"as_of": "2024-13-01"}, 400, "INVALID_DATE", "“2024-13-01” is not a date", "“2024-13-01”不是日期"),
    ({"as_of": "2030-01-01"}, 400, "AS_OF_OUT_OF_RANGE",
     "600002.SH: as-of 2030-01-01 is after the stored bars", "600002.SH：分析日期 2030-01-01"),
    ({"experts": []}, 400, "NO_EXPERTS", "Choose at least one expert.", "请至少选择一位专家"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("fields", "status", "code", "english", "chinese"),
    REFUSED,
    ids=[case[2].lower() for case in REFUSED],
)
def test_bad_input_comes_back_in_the_form_with_its_code_in_the_page_language_and_nothing_starts(
    client: TestClient,
    container: AppContainer,
    fields: dict,
    status: int,
    code: str,
    english: str,
    chinese: str,
) -> None:
    refused = client.post("/batches", data=form(**fields), follow_redirects=False)
    assert refused.status_code == status, refused.text
    assert f'role="alert" data-code="{code}"' in refused.text and english in refused.text
    assert f'value="{form(**fields)["symbols"]}"' in refused.text  # the form comes back as sent
    zh = client.post("/batches", data=form(**fields), headers=ZH, follow_redirects=False)
    assert zh.status_code == status and chinese in zh.text and "批量分析未启动" in zh.text
    assert container.batch_analysis.recent() == [] and container.jobs.active() == []


def test_more_symbols_than_a_request_may_ask_are_refused_with_the_bound(
    settings: Settings, tmp_path: Path
) -> None:
    client, container = batch_app(settings.model_copy(update={"max_universe_symbols": 1}), tmp_path)
    refused = client.post("/batches", data=form(), follow_redirects=False)
    assert refused.status_code == 422 and 'data-code="UNIVERSE_TOO_LARGE"' in refused.text
    assert "2 symbols given; a batch started here takes at most 1." in refused.text
    assert "输入了 2 个标的" in client.post("/batches", data=form(), headers=ZH).text
    assert container.batch_analysis.recent() == []


def test_a_batch_stopped_by_its_budget_offers_to_analyse_the_symbols_left(
    settings: Settings, tmp_path: Path
) -> None:
    client, container = batch_app(
        settings, tmp_path, workers=1
    )  # one at a time: the budget stops it after one
    job_id = start(client, max_tokens="1")
    ended(container, job_id)
    page = client.get(f"/batches/{job_id}").text
    assert 'data-state="stopped"' in page and 'id="go-on"' in page
    assert "1 of 2 symbols analysed, 0 failed, 1 left" in page
    go_on = re.search(r'<section class="card" id="go-on".*?</section>', page, re.S)
    assert go_on is not None
    hidden = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', go_on.group(0)))
    assert hidden["symbols"] == ", ".join(SYMBOLS) and hidden["as_of"] == AS_OF.isoformat()
    fields = re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', go_on.group(0))
    again = client.post("/batches", data=_multi(fields), follow_redirects=False)
    assert again.headers["location"] == f"/batches/{job_id}"  # the same batch, going on
    ended(container, job_id)
    assert container.batch_analysis.counts(job_id).done == 2
    assert 'id="go-on"' not in client.get(f"/batches/{job_id}").text


def _multi(fields: list[tuple[str, str]]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for name, value in fields:
        if name == "experts":
            data.setdefault(name, []).append(value)
        else:
            data[name] = value
    return data


def test_an_unknown_batch_is_a_404_page_and_its_stream_too(client: TestClient) -> None:
    page = client.get("/batches/nope")
    assert page.status_code == 404 and 'data-code="BATCH_NOT_FOUND"' in page.text
    assert client.get("/batches/nope/events").status_code == 404


def test_every_refusal_and_the_kind_are_worded_in_both_languages() -> None:
    keys = [*ERROR_KEYS.values(), *(AS_OF_KEY.format(side=s) for s in ("after", "before", "none"))]
    keys += [f"jobs.kind.{kind}" for kind in KNOWN_KINDS]
    for lang in ("en", "zh"):
        missing = [key for key in keys if key not in catalog(lang)]
        assert not missing, f"{lang}: {missing}"


def test_a_stream_of_a_finished_batch_ends_at_once(client: TestClient, container: AppContainer) -> None:
    job_id = start(client)
    ended(container, job_id)
    found = events(client, f"/batches/{job_id}/events")
    assert [kind for kind, _ in found][-1] == "done"


def test_a_rules_only_batch_runs_each_analysis_without_the_llm_and_is_a_batch_of_its_own(
    client: TestClient, container: AppContainer
) -> None:
    """Issue 32, item 7: "rules-only options ... where a rules path exists": a batch's analyses have
    the Analyze form's rules path. The same symbols with and without it are two batches."""
    assert 'name="rules_only" value="1"' in client.get("/batches").text
    job_id = start(client, rules_only="1")
    ended(container, job_id)
    page = client.get(f"/batches/{job_id}").text
    assert "2 of 2 symbols analysed" in page and 'name="rules_only" value="1"' not in page.split("<form")[0]
    for row in container.batch_analysis.rows(job_id):
        session = container.coordinator.service.get(row.session_id)
        assert session.llm_settings == {"rules_only": True} and session.llm_calls == 0
        assert session.verdict.get("action") in ("BUY", "HOLD", "SELL")
    assert start(client) != job_id  # the same symbols with the LLM: another batch
