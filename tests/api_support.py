"""REST test clients over the real app: loopback Host, and the access policy each test asks for."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from fastapi.testclient import TestClient

from stockdesk.coordinator.presentation.batch_jobs import BatchLauncher
from stockdesk.entrypoints.api import create_app, default_policy
from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.access import AuthMode

LOOPBACK = "http://127.0.0.1"


def api_client(
    container: AppContainer,
    *,
    auth: AuthMode = AuthMode.NONE,
    batches: BatchLauncher | None = None,
    **policy: Any,
) -> TestClient:
    """A client of the app with `container`; no key needed unless `auth` says otherwise; `batches`:
    how its batch analyses run (default the server's, on Ray).

    Route tests use the default (the server as `stockdesk serve --no-auth` runs it); the access
    tests in tests/entrypoints/test_access.py pass the modes a real server uses.
    """
    chosen = replace(default_policy(container.settings), auth=auth, **policy)
    app = create_app(container, chosen, batches)
    return TestClient(app, base_url=LOOPBACK, raise_server_exceptions=False)


def wait_for_job(
    client: TestClient, url: str, *, until: tuple[str, ...] = ("done", "completed", "failed")
) -> dict:
    """GET `url` until its `status` is one of `until` (jobs run on the executor's threads now)."""
    deadline = time.monotonic() + 60.0
    while True:
        body = client.get(url).json()
        if body.get("status") in until or time.monotonic() > deadline:
            return body
        time.sleep(0.05)
