"""Strategy routes through FastAPI's test client: backtest, start a run, read it; distinct error codes."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from tests.api_support import api_client, wait_for_job
from tests.conftest import scripted_service
from tests.strategy_lab.support import MEAN_REVERSION, PARAMS, answer, populate


@pytest.fixture
def client(settings: Settings) -> TestClient:
    container = AppContainer(settings)
    provider = ScriptedProvider([answer(), "no JSON", "no JSON", "no JSON"])
    container.__dict__["llm_service"] = scripted_service(provider, database=container.database)
    populate(container.database)
    return api_client(container)


def test_backtest_returns_metrics_and_the_curve(client: TestClient) -> None:
    response = client.post("/api/v1/strategy/backtest", json={"params": PARAMS, "start": "2023-07-01"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["metrics"]["trades"] > 0 and body["params"] == PARAMS
    assert len(body["equity_curve"]) == body["metrics"]["days"]


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"params": {**PARAMS, "momentum_period": 25}}, 400, "INVALID_STRATEGY_PARAMS"),
        ({"params": PARAMS, "universe": ["999999.SH"]}, 400, "INVALID_UNIVERSE"),
        ({"params": PARAMS, "start": "2024-06-01", "end": "2024-01-01"}, 400, "INVALID_BACKTEST_WINDOW"),
    ],
)
def test_bad_backtest_input_has_its_own_error_code(
    client: TestClient, body: dict, status: int, code: str
) -> None:
    response = client.post("/api/v1/strategy/backtest", json=body)
    assert response.status_code == status and response.json()["error"]["code"] == code


def test_a_start_years_after_the_end_is_a_window_error_not_a_universe_one(client: TestClient) -> None:
    """Nothing stored between such dates: the window is what is wrong, and the message says how."""
    window = {"start": "2026-01-05", "end": "2023-01-03"}
    for path, body in (("/api/v1/strategy/backtest", {"params": PARAMS}), ("/api/v1/strategy/runs", {})):
        response = client.post(path, json={**body, **window})
        error = response.json()["error"]
        assert response.status_code == 400 and error["code"] == "INVALID_BACKTEST_WINDOW", response.text
        assert "the start 2026-01-05 is after the end 2023-01-03" in error["message"]


def test_invalid_params_carry_the_structured_details(client: TestClient) -> None:
    response = client.post("/api/v1/strategy/backtest", json={"params": {**PARAMS, "momentum_period": 25}})
    [detail] = response.json()["error"]["details"]["errors"]
    assert detail["field_path"] == "params.momentum_period" and detail["allowed_values"] == [5, 10, 20, 30]


def test_a_run_is_accepted_then_iterates_and_can_be_read(client: TestClient) -> None:
    started = client.post("/api/v1/strategy/runs", json={"iterations": 2, "start": "2023-07-01"})
    assert started.status_code == 202, started.text
    run_id = started.json()["id"]
    assert started.json()["status"] == "running" and started.json()["iterations"] == []
    run = wait_for_job(client, f"/api/v1/strategy/runs/{run_id}")  # a job on the executor
    assert run["status"] == "completed"
    assert [i["status"] for i in run["iterations"]][1] == "generation_failed"
    assert run["iterations"][1]["attempts"] == 3 and run["iterations"][0]["metrics"]["trades"] > 0
    assert [r["id"] for r in client.get("/api/v1/strategy/runs").json()] == [run_id]


def test_unknown_run_is_404_and_bad_run_bodies_are_rejected(client: TestClient) -> None:
    missing = client.get("/api/v1/strategy/runs/nope")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "STRATEGY_RUN_NOT_FOUND"
    bad = client.post("/api/v1/strategy/runs", json={"iterations": 0})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "BAD_REQUEST"
    unknown = client.post("/api/v1/strategy/runs", json={"iterations": 1, "universe": ["999999.SH"]})
    assert unknown.status_code == 400 and unknown.json()["error"]["code"] == "INVALID_UNIVERSE"


def test_any_family_backtests_with_and_without_costs_under_the_given_execution(client: TestClient) -> None:
    body = {"params": MEAN_REVERSION, "start": "2023-07-01", "execution": {"capital": None, "slippage": 0.0}}
    response = client.post("/api/v1/strategy/backtest", json=body)
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["params"]["strategy_type"] == "mean_reversion"
    assert result["execution"]["capital"] is None  # fractional weights, no lots
    # the same orders without costs earn at least as much as with them
    assert result["gross_metrics"]["total_return"] >= result["metrics"]["total_return"]
    assert len(result["equity_curve"]) == result["metrics"]["days"]


def test_a_run_takes_its_split_and_a_split_without_holdout_is_refused(client: TestClient) -> None:
    refused = client.post(
        "/api/v1/strategy/runs", json={"iterations": 1, "split": {"in_sample": 0.7, "validation": 0.25}}
    )
    assert refused.status_code == 400 and "holdout" in refused.text
    started = client.post(
        "/api/v1/strategy/runs",
        json={"iterations": 1, "start": "2023-01-02", "split": {"mode": "walk_forward", "folds": 2}},
    )
    assert started.status_code == 202, started.text
    run = wait_for_job(client, f"/api/v1/strategy/runs/{started.json()['id']}")
    assert run["status"] == "completed" and run["config"]["split"]["mode"] == "walk_forward"
    assert run["summary"]["plan"]["mode"] == "walk_forward" and len(run["summary"]["plan"]["folds"]) == 2
    assert run["families_tried"] == ["momentum"] and run["trials"] == 1
    for split in ("in_sample", "validation", "holdout"):
        assert isinstance(run["splits"][split]["sharpe"], float)
