"""Evaluation routes through FastAPI's test client: start (202), poll, report; distinct error codes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from tests.api_support import api_client, wait_for_job
from tests.evaluation.market import populate, symbols

NAMES = symbols(5)
BODY = {"symbols": NAMES, "start": "2023-01-02", "end": "2023-12-29", "every": 20, "horizons": [5, 20]}


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    container = AppContainer(settings)
    populate(container.database, NAMES)
    with api_client(container) as test_client:
        yield test_client
    container.close()


def test_an_evaluation_starts_runs_in_the_background_and_serves_its_report(client: TestClient) -> None:
    started = client.post("/api/v1/evaluations", json=BODY)
    assert started.status_code == 202
    job = started.json()
    assert job["total"] > 50 and job["config"]["mode"] == "rules"
    status = wait_for_job(client, f"/api/v1/evaluations/{job['job_id']}")  # a job on the executor
    assert status["done"] == status["total"] and status["status"] == "done"
    report = client.get(f"/api/v1/evaluations/{job['job_id']}/report").json()
    assert len(report["points"]) == job["total"] and report["metrics"]["rules"]["20"]["rank_ic"]["dates"] > 5
    page = client.get(f"/api/v1/evaluations/{job['job_id']}/report", params={"format": "html"})
    assert page.headers["content-type"].startswith("text/html") and page.text.count("<svg") == 4
    again = client.post("/api/v1/evaluations", json=BODY).json()  # same config: the same durable job
    assert again["job_id"] == job["job_id"] and again["pending"] == 0


def test_errors_have_distinguishable_codes(client: TestClient) -> None:
    unknown = client.post("/api/v1/evaluations", json={**BODY, "symbols": ["688999.SH"]})
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "UNKNOWN_SYMBOL"
    empty = client.post("/api/v1/evaluations", json={**BODY, "start": "2030-01-01", "end": "2030-02-01"})
    assert empty.status_code == 400 and empty.json()["error"]["code"] == "EMPTY_WINDOW"
    missing = client.get("/api/v1/evaluations/nope")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "EVALUATION_NOT_FOUND"
    invalid = client.post("/api/v1/evaluations", json={**BODY, "horizons": [0]})
    assert (
        invalid.status_code == 400 and invalid.json()["error"]["code"] == "BAD_REQUEST"
    )  # schema: horizons >= 1
    rules_reflecting = client.post("/api/v1/evaluations", json={**BODY, "reflection": True})
    assert rules_reflecting.status_code == 400
    assert rules_reflecting.json()["error"]["code"] == "INVALID_EVALUATION"
    assert "only the full mode" in rules_reflecting.json()["error"]["message"]
