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


def early_in_a_minute(seconds_needed: float) -> None:
    """Wait until the rest of this minute holds `seconds_needed`. A key's rate quota is a sliding window
    estimated from this minute's count and the last one's, weighted: across a minute's turn the estimate
    of a full quota dips just below it, so a request that should be refused passes. A test that spends a
    quota and then expects the refusal runs its steps within one minute."""
    while time.time() % 60 > 60 - seconds_needed:
        time.sleep(0.2)
