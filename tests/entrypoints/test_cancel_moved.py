"""Every kind of job is stopped by `POST /api/v1/jobs/{id}/cancel`: the per-kind cancel routes that
came first answer 307 to it (method kept) and are gone from the OpenAPI document."""

from __future__ import annotations

import pytest

from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from tests.api_support import api_client

MOVED = (
    "/api/v1/evaluations/{id}/cancel",
    "/api/v1/strategy/runs/{id}/cancel",
    "/api/v1/briefings/{id}/cancel",
    "/api/v1/coordinator/research/jobs/{id}/cancel",
    "/api/v1/portfolio/jobs/{id}/cancel",
)


@pytest.mark.parametrize("route", MOVED)
def test_a_per_kind_cancel_route_redirects_to_the_jobs_route(settings: Settings, route: str) -> None:
    client = api_client(AppContainer(settings))
    moved = client.post(route.format(id="j1"), follow_redirects=False)
    assert moved.status_code == 307 and moved.headers["location"] == "/api/v1/jobs/j1/cancel"
    followed = client.post(route.format(id="j1"))  # nothing runs under that id: the jobs route's 404
    assert followed.status_code == 404 and followed.json()["error"]["code"] == "JOB_NOT_FOUND"


def test_the_openapi_document_shows_one_cancel_route(settings: Settings) -> None:
    paths = api_client(AppContainer(settings)).get("/api/v1/openapi.json").json()["paths"]
    cancels = sorted(p for p in paths if p.endswith("/cancel"))
    assert cancels == ["/api/v1/jobs/{job_id}/cancel"]
