"""`NaN` and `Infinity` in a JSON body are a 400 NON_FINITE_NUMBER on every route (the probe's NaN in a
strategy's params was a 500), and an error that echoes a non-finite value is never a 500 itself."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.http_errors import error_response
from stockdesk.shared.config import Settings
from tests.api_support import api_client
from tests.strategy_lab.support import PARAMS, populate

JSON = {"content-type": "application/json"}


@pytest.fixture
def client(settings: Settings) -> TestClient:
    container = AppContainer(settings)
    populate(container.database)
    return api_client(container)


def post(client: TestClient, path: str, body: str, **headers: str) -> dict:
    response = client.post(path, content=body, headers={**JSON, **headers})
    assert response.status_code == 400, response.text
    return response.json()["error"]


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_a_non_finite_strategy_param_is_400_with_its_own_code(client: TestClient, number: str) -> None:
    params = json.dumps({**PARAMS, "stop_loss": 0.1}).replace("0.1", number, 1)
    error = post(
        client, "/api/v1/strategy/backtest", f'{{"params": {params}}}', **{"X-Request-ID": "probe-1"}
    )
    assert error["code"] == "NON_FINITE_NUMBER" and error["details"] == {"value": number}
    assert (
        f"the number {number}, which is not finite" in error["message"] and error["request_id"] == "probe-1"
    )


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/v1/strategy/runs", '{"iterations": 1, "max_drawdown_limit": NaN}'),
        ("/api/v1/evaluations", '{"symbols": ["600001.SH"], "start": "2023-01-02", "extra": [1, -Infinity]}'),
    ],
    ids=["strategy-run", "evaluation"],
)
def test_any_json_body_with_one_is_refused_before_its_route_reads_it(
    client: TestClient, path: str, body: str
) -> None:
    """The evaluation's number is in a field its schema does not even have: the body is refused whole."""
    assert post(client, path, body)["code"] == "NON_FINITE_NUMBER"
    assert client.get("/api/v1/strategy/runs").json() == []  # nothing was started


def test_the_words_inside_strings_and_invalid_json_are_left_to_the_route(client: TestClient) -> None:
    named = post(
        client, "/api/v1/strategy/backtest", f'{{"params": {json.dumps(PARAMS)}, "universe": ["NaN"]}}'
    )
    assert named["code"] == "INVALID_UNIVERSE"  # a symbol called NaN is text, not a number
    broken = post(client, "/api/v1/strategy/backtest", '{"params": {"stop_loss": 0.1')
    assert broken["code"] == "BAD_REQUEST" and "JSON" in broken["message"]


def test_an_error_echoing_a_non_finite_value_is_written_as_text() -> None:
    details = {"errors": [{"value": float("nan")}, {"value": (float("inf"), -float("inf"), 1.5)}]}
    response = error_response(400, "INVALID_STRATEGY_PARAMS", "bad", "r1", details=details)
    body = json.loads(response.body)
    assert response.status_code == 400
    assert body["error"]["details"] == {
        "errors": [{"value": "NaN"}, {"value": ["Infinity", "-Infinity", 1.5]}]
    }
