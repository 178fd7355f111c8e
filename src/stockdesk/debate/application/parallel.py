"""Run a few blocking LLM calls at once, each in a copy of the caller's context.

The LLM run id is a contextvar: worker threads do not inherit it, so each call runs in its own
copy of the caller's context (a context cannot be entered by two threads at once).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from stockdesk.shared.tasks.cancel import check_cancelled

R = TypeVar("R")


def run_in_parallel(calls: Sequence[Callable[[], R]], *, name: str, slots: int | None = None) -> list[R]:
    """The calls' results in the order given, at most `slots` at a time (default: all at once);
    the first exception is raised."""
    workers = max(1, min(slots or len(calls), len(calls)))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name) as pool:
        futures = [pool.submit(contextvars.copy_context().run, call) for call in calls]
        return [future.result() for future in futures]


def run_bounded(calls: Sequence[Callable[[], R]], *, slots: int, name: str) -> list[R | Exception]:
    """Like run_in_parallel, but a failing call's exception is returned in its place, so one
    failure neither hides the others' results nor leaves them running unseen."""

    def caught(call: Callable[[], R]) -> Callable[[], R | Exception]:
        def run() -> R | Exception:
            try:
                return call()
            except Exception as exc:  # handed back in the call's place
                return exc

        return run

    results = run_in_parallel([caught(call) for call in calls], name=name, slots=slots) if calls else []
    check_cancelled()  # a call cut by a cancel of the job is no failure to record: the job stops
    return results
