"""POST /api/v1/coordinator/research takes only the fields it uses: an unused one is refused, not ignored."""

from __future__ import annotations

from stockdesk.coordinator.application import ResearchRequest
from stockdesk.shared.config import Settings
from tests.api_support import api_client
from tests.coordinator.support import SYMBOL, pipeline

URL = "/api/v1/coordinator/research"


def test_an_unused_field_is_a_400_and_nothing_starts(settings: Settings) -> None:
    container, router, _ = pipeline(settings)
    client = api_client(container)
    response = client.post(
        URL, json={"symbol": SYMBOL, "experts": ["technical_analyst"], "options": {"x": 1}}
    )
    assert response.status_code == 400 and response.json()["error"]["code"] == "BAD_REQUEST"
    assert "options" in response.json()["error"]["message"]
    assert router.calls == [] and client.get(f"{URL}/sessions").json()["total"] == 0
    assert "options" not in ResearchRequest.model_fields
