"""What /health reports when the store cannot open or hangs: it says so (status `degraded`) instead
of failing or waiting on the store (the store is opened by a thread of the probe's own)."""

from __future__ import annotations

import threading
import time

import anyio
import pytest

from stockdesk.entrypoints import health
from stockdesk.entrypoints.health import HealthProbe
from stockdesk.shared.config import Settings
from stockdesk.shared.errors import ServiceUnavailableError


def test_a_store_that_cannot_open_is_reported_degraded(settings: Settings) -> None:
    def broken() -> None:
        raise ServiceUnavailableError("cannot open the database (disk I/O error)")

    report = anyio.run(HealthProbe(settings, broken).answer)
    assert report["status"] == "degraded"
    assert report["database"] == "error: cannot open the database (disk I/O error)"
    assert report["llm_aliases"] == ["local"]


def test_a_hung_store_is_reported_not_open_and_then_ok_once_it_opens(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(health, "FIRST_WAIT_SECONDS", 0.2)
    opened = threading.Event()
    probe = HealthProbe(settings, lambda: opened.wait(60) and None)
    first = anyio.run(probe.answer)
    assert first["status"] == "degraded" and first["database"] == "error: the store has not opened yet"
    assert anyio.run(probe.answer)["database"] == "error: the store has not opened yet"  # no second wait
    opened.set()
    deadline = time.monotonic() + 30
    while anyio.run(probe.answer)["database"] != "ok":
        assert time.monotonic() < deadline, "the store's open was never reported"
        time.sleep(0.05)
    assert anyio.run(probe.answer)["status"] == "ok"
