"""Server-sent events of a job's progress: the same stream for the REST API and the web pages.

Progress is read from its source (a live run, or the stored job) every `interval` seconds and sent
only when what a client would see changed; the stream ends after the finished state is sent. Every
client polls the same source, so two tabs (or a page reloaded mid-run) see the same progress.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import TypeVar

from anyio import to_thread

T = TypeVar("T")
KEEPALIVE_SECONDS = 15.0
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def sse_message(data: str, event: str | None = None) -> str:
    """One SSE message; multi-line data is sent as one `data:` line per line."""
    head = f"event: {event}\n" if event else ""
    body = "".join(f"data: {line}\n" for line in (data.splitlines() or [""]))
    return f"{head}{body}\n"


async def progress_events(
    read: Callable[[], T],
    render: Callable[[T], str],
    finished: Callable[[T], bool],
    *,
    event: str | None = None,
    interval: float = 0.5,
    done_event: str = "done",
) -> AsyncIterator[str]:
    """Changed renderings of `read()` (called in a worker thread: it may touch the database)."""
    last, quiet = None, 0.0
    while True:
        state = await to_thread.run_sync(read)
        text = render(state)
        if text != last:
            yield sse_message(text, event)
            last, quiet = text, 0.0
        elif quiet >= KEEPALIVE_SECONDS:
            yield ": keep-alive\n\n"  # a comment: keeps proxies and the browser from timing out
            quiet = 0.0
        if finished(state):
            yield sse_message("finished", done_event)
            return
        await asyncio.sleep(interval)
        quiet += interval
