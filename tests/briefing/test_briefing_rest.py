"""Briefings over REST (FastAPI's test client over the real app and container, scripted model): 202 and a
durable job, progress per step, 409 while unfinished or failed, 404 for an unknown id, the script.json,
and distinguishable 400/404 codes for bad input."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from stockdesk.shared.db.task_store import SqlTaskStore
from tests.api_support import api_client, wait_for_job
from tests.briefing.briefing_support import TICKERS, BriefingModel, base_script, llm_over, seed_briefing_store

BODY: dict[str, Any] = {"date": "2024-03-01", "tickers": ["zmpl", "XMPL", "ympl"]}


def client_over(model: BriefingModel, settings: Settings, folder: Path) -> tuple[TestClient, AppContainer]:
    container = AppContainer(settings, llm_service=llm_over(model))
    seed_briefing_store(container.database, folder)
    return api_client(container), container


@pytest.fixture
def model() -> BriefingModel:
    return BriefingModel()


@pytest.fixture
def app(
    model: BriefingModel, settings: Settings, tmp_path: Path
) -> Iterator[tuple[TestClient, AppContainer]]:
    client, container = client_over(model, settings, tmp_path)
    with client:
        yield client, container
    container.close()


def test_a_briefing_job_reports_progress_answers_409_until_done_then_serves_the_script(
    app: tuple[TestClient, AppContainer], model: BriefingModel
) -> None:
    client, container = app
    jobs = container.briefing.jobs
    assert jobs is not None
    waiting = jobs.start(date(2024, 3, 1), BODY["tickers"], base_script())  # opened, not run yet
    status = client.get(f"/api/v1/briefings/{waiting.job_id}")
    assert status.status_code == 200
    body = status.json()
    assert body["status"] == "pending" and body["done"] == 0 and body["total"] == 4
    assert [(s["key"], s["ticker"], s["status"]) for s in body["steps"]] == [
        ("01:ZMPL", "ZMPL", "pending"),
        ("02:XMPL", "XMPL", "pending"),
        ("03:YMPL", "YMPL", "pending"),
        ("99:refine", None, "pending"),
    ]
    early = client.get(f"/api/v1/briefings/{waiting.job_id}/script")
    assert early.status_code == 409 and early.json()["error"]["code"] == "BRIEFING_NOT_FINISHED"
    assert "0 of 4 steps done" in early.json()["error"]["message"] and model.llm_calls == 0

    started = client.post("/api/v1/briefings", json={**BODY, "base_script": base_script()})
    assert started.status_code == 202
    assert started.json()["job_id"] == waiting.job_id  # the same request is the same durable job
    done = wait_for_job(client, f"/api/v1/briefings/{waiting.job_id}")  # a job on the executor
    assert done["status"] == "done" and done["done"] == done["total"] == 4
    assert all(s["status"] == "done" and s["attempts"] == 1 for s in done["steps"])

    script = client.get(f"/api/v1/briefings/{waiting.job_id}/script")
    assert script.status_code == 200
    data = script.json()
    assert set(data) == {"date", "user_tickers", "chapter", "scripts"}
    assert data["user_tickers"] == ["ZMPL", "XMPL", "YMPL"]
    assert [(c["name"], c["start_id"], c["end_id"]) for c in data["chapter"]] == [
        ("opening", 0, 1),
        ("theme", 2, 3),
        ("ticker:ZMPL", 4, 7),
        ("ticker:XMPL", 8, 11),
        ("ticker:YMPL", 12, 15),
    ]
    assert [t["id"] for t in data["scripts"]] == list(range(16))

    calls = model.llm_calls
    again = client.post("/api/v1/briefings", json={**BODY, "base_script": base_script()})
    assert again.status_code == 202 and again.json()["status"] == "done" and model.llm_calls == calls


def test_unknown_ids_are_404(app: tuple[TestClient, AppContainer]) -> None:
    client, _ = app
    for path in ("/api/v1/briefings/nope", "/api/v1/briefings/nope/script"):
        answer = client.get(path)
        assert answer.status_code == 404 and answer.json()["error"]["code"] == "BRIEFING_NOT_FOUND"


@pytest.mark.parametrize(
    ("changes", "status", "code", "message"),
    [
        ({"tickers": []}, 400, "INVALID_TICKERS", "give at least one ticker"),
        ({"tickers": ["AAPL", "NV DA"]}, 400, "INVALID_TICKERS", "bad ticker 'NV DA'"),
        ({"tickers": [f"T{i}" for i in range(11)]}, 400, "INVALID_TICKERS", "at most 10 tickers"),
        ({"date": "2024-02-30"}, 400, "INVALID_DATE", "'2024-02-30' is not a date"),
        ({"base_script": {"chapter": [], "scripts": [{"id": 1}]}}, 400, "BAD_BASE_SCRIPT", "base script:"),
        ({"base_script": ["opening"]}, 400, "BAD_BASE_SCRIPT", "expected a JSON object"),
        ({"max_rounds": 1}, 400, "INVALID_MAX_ROUNDS", "at least the panel's minimum"),
        ({"tickers": ["XMPL", "NOPE"]}, 404, "UNKNOWN_TICKER", "no daily bars for NOPE"),
    ],
    ids=[
        "no-tickers",
        "bad-ticker",
        "too-many",
        "bad-date",
        "bad-base",
        "base-not-object",
        "max-rounds",
        "unknown-ticker",
    ],
)
def test_bad_input_has_distinguishable_codes_and_starts_nothing(
    app: tuple[TestClient, AppContainer],
    model: BriefingModel,
    changes: dict[str, Any],
    status: int,
    code: str,
    message: str,
) -> None:
    client, container = app
    answer = client.post("/api/v1/briefings", json={**BODY, **changes})
    assert answer.status_code == status and answer.json()["error"]["code"] == code
    assert message in answer.json()["error"]["message"]
    assert model.llm_calls == 0
    assert SqlTaskStore(container.database).list_jobs("briefing") == []


def test_a_failing_ticker_fails_the_job_naming_it_and_the_script_is_409(
    settings: Settings, tmp_path: Path
) -> None:
    model = BriefingModel(fail_panel_for="XMPL")
    client, container = client_over(model, settings, tmp_path)
    with client:
        started = client.post("/api/v1/briefings", json={"date": "2024-03-01", "tickers": TICKERS})
        assert started.status_code == 202
        job = wait_for_job(client, f"/api/v1/briefings/{started.json()['job_id']}")
        assert job["status"] == "failed" and job["error"].startswith("XMPL: ")
        steps = {s["key"]: s for s in job["steps"]}
        assert steps["01:XMPL"]["status"] == "failed" and "XMPL: " in steps["01:XMPL"]["error"]
        assert (
            steps["99:refine"]["status"] == "failed" and "not run: XMPL failed" in steps["99:refine"]["error"]
        )
        assert model.refiner_prompts == []
        script = client.get(f"/api/v1/briefings/{job['job_id']}/script")
        assert script.status_code == 409 and script.json()["error"]["code"] == "BRIEFING_FAILED"
        assert "XMPL" in script.json()["error"]["message"]
    container.close()
