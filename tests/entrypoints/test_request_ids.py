"""`X-Request-ID`: a client's short safe id is kept; anything else is replaced, never echoed or logged.

The probe sent a 10,000-character id and got it back in the answer header and in the log. The app
here is the real one (tests/api_support.py), with a route that fails so the error log line shows.
"""

from __future__ import annotations

import logging
import re

import pytest

from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.request_ids import request_id
from stockdesk.shared.access import AuthMode
from stockdesk.shared.config import Settings
from tests.api_support import api_client

FRESH = re.compile(r"[0-9a-f]{32}")
UNSAFE = ("a" * 10_000, "a" * 65, "two words", "<script>alert(1)</script>", "id;evil=1", "")


@pytest.fixture
def container(settings: Settings) -> AppContainer:
    return AppContainer(settings)


@pytest.mark.parametrize("sent", UNSAFE, ids=["10000", "65", "space", "markup", "semicolon", "empty"])
def test_an_over_long_or_unsafe_request_id_is_replaced(container: AppContainer, sent: str) -> None:
    client = api_client(container, auth=AuthMode.SPENDING)
    headers = {"X-Request-ID": sent}
    route_error = client.get("/api/v1/no/such", headers=headers)  # 404 from the route
    middleware_refusal = client.post("/api/v1/judge/verdict", json={}, headers=headers)  # 401
    page = client.get("/no/such/page", headers=headers)
    for answer in (route_error, middleware_refusal, page):
        echoed = answer.headers["X-Request-ID"]
        assert FRESH.fullmatch(echoed), answer.status_code
        assert not sent or sent not in answer.text
    assert client.get("/api/v1/no/such", headers={"X-Request-ID": sent}).json()["error"]["request_id"] != sent


def test_a_short_safe_request_id_is_kept_end_to_end(container: AppContainer) -> None:
    client = api_client(container, auth=AuthMode.SPENDING)
    sent = "client-42.retry_1"
    refused = client.post("/api/v1/judge/verdict", json={}, headers={"X-Request-ID": sent})
    assert refused.status_code == 401 and refused.headers["X-Request-ID"] == sent
    assert refused.json()["error"]["request_id"] == sent
    assert client.get("/api/v1/health", headers={"X-Request-ID": sent}).headers["X-Request-ID"] == sent
    assert request_id("a" * 64) == "a" * 64 and request_id("a" * 65) != "a" * 65


def test_the_log_names_the_replacement_not_the_long_id(
    container: AppContainer, caplog: pytest.LogCaptureFixture
) -> None:
    client = api_client(container)

    def fail() -> None:
        raise RuntimeError("boom")

    client.app.add_api_route("/api/v1/test-failure", fail)  # type: ignore[attr-defined]
    sent = "x" * 5_000
    with caplog.at_level(logging.ERROR):
        answer = client.get("/api/v1/test-failure", headers={"X-Request-ID": sent})
    assert answer.status_code == 500
    rid = answer.headers["X-Request-ID"]
    assert FRESH.fullmatch(rid) and answer.json()["error"]["request_id"] == rid
    assert rid in caplog.text and sent not in caplog.text
