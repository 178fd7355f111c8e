"""Coordinator REST routes through FastAPI's test client: run, list, read, retry, and their errors."""

from __future__ import annotations

from stockdesk.shared.config import Settings
from tests.api_support import api_client
from tests.coordinator.support import AS_OF, SYMBOL, pipeline

URL = "/api/v1/coordinator/research"


def test_research_session_round_trip_over_rest(settings: Settings) -> None:
    container, router, _ = pipeline(settings)
    router.broken = {"ValuationModelOutput"}
    client = api_client(container)
    body = {
        "symbol": SYMBOL,
        "as_of": AS_OF.isoformat(),
        "experts": ["valuation_modeler", "financial_auditor"],
    }
    run = client.post(URL, json=body)
    assert run.status_code == 200, run.text
    session = run.json()
    assert session["status"] == "partial" and "valuation_modeler" in session["expert_errors"]
    assert session["verdict"]["action"] == "HOLD"

    listed = client.get(f"{URL}/sessions", params={"symbol": SYMBOL, "status": "partial"}).json()
    assert listed["total"] == 1 and listed["items"][0]["id"] == session["id"]
    assert listed["items"][0]["action"] == "HOLD"

    whole = client.get(f"{URL}/sessions/{session['id']}").json()
    assert whole["expert_results"]["financial_auditor"]["financial_indicators"]
    assert {n["node"] for n in whole["nodes"]} >= {"valuation_modeler", "financial_auditor", "judge_node"}

    router.broken = set()
    retried = client.post(f"{URL}/{session['id']}/retry")
    assert retried.status_code == 200, retried.text
    assert retried.json()["parent_session_id"] == session["id"]
    assert retried.json()["status"] == "completed"


def test_rest_errors_are_distinguishable(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container)
    missing = client.get(f"{URL}/sessions/unknown")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "SESSION_NOT_FOUND"
    bad_expert = client.post(URL, json={"symbol": SYMBOL, "experts": ["astrologer"]})
    assert bad_expert.status_code == 400 and bad_expert.json()["error"]["code"] == "BAD_REQUEST"
    empty = client.post(URL, json={"symbol": SYMBOL, "experts": []})
    assert empty.status_code == 400 and empty.json()["error"]["code"] == "BAD_REQUEST"  # schema: min 1
    paging = client.get(f"{URL}/sessions", params={"limit": 0})
    assert paging.status_code == 400
    unknown_symbol = client.post(URL, json={"symbol": "999999.SH", "experts": ["technical_analyst"]})
    assert unknown_symbol.status_code == 404 and "999999.SH" in unknown_symbol.json()["error"]["message"]
    assert client.get(f"{URL}/sessions").json()["total"] == 0  # nothing was started
