"""Helpers of the lab pages' HTTP tests: hold a job queued, follow an SSE stream.

A job is held `queued` by occupying its kind's only executor slot with a job that waits for an
event, so a test sees a live page without racing the job: it ends when the test says so.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient

from stockdesk.shared.tasks.executor import JobExecutor

EVENT = re.compile(r"event: (?P<event>\w+)\n(?P<data>(?:data: .*\n)+)")


@contextmanager
def slot_taken(jobs: JobExecutor, kind: str) -> Iterator[threading.Event]:
    """Occupy `kind`'s slot (max_running=1) until the yielded event is set (at the latest on exit)."""
    assert jobs.max_running == 1
    release = threading.Event()
    assert jobs.submit(kind, f"blocker-{kind}", lambda: release.wait(60))
    try:
        yield release
    finally:
        release.set()


def spy(target: Any, method: str) -> threading.Event:
    """An event set the first time `target.method` is called from now on (the original still runs)."""
    called = threading.Event()
    original: Callable[..., Any] = getattr(target, method)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        called.set()
        return result

    setattr(target, method, wrapped)
    return called


def events(client: TestClient, url: str) -> list[tuple[str, str]]:
    """Every (event, data) of an SSE stream read to its end; data lines joined with newlines."""
    with client.stream("GET", url) as response:
        assert response.status_code == 200 and response.headers["content-type"].startswith(
            "text/event-stream"
        )
        text = response.read().decode("utf-8")
    return [
        (m["event"], "\n".join(line[6:] for line in m["data"].splitlines())) for m in EVENT.finditer(text)
    ]


def read_events_in_background(client: TestClient, url: str) -> tuple[threading.Thread, list]:
    """Start reading the stream in a thread; the list gets the events once the stream has ended."""
    found: list[tuple[str, str]] = []
    thread = threading.Thread(target=lambda: found.extend(events(client, url)), daemon=True)
    thread.start()
    return thread, found
