"""Run a few blocking LLM calls at once, each in a copy of the caller's context.

The LLM run id is a contextvar: worker threads do not inherit it, so each call runs in its own
copy of the caller's context (a context cannot be entered by two threads at once).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

R = TypeVar("R")


def run_in_parallel(calls: Sequence[Callable[[], R]], *, name: str) -> list[R]:
    """The calls' results in the order given; the first exception is raised."""
    with ThreadPoolExecutor(max_workers=len(calls), thread_name_prefix=name) as pool:
        futures = [pool.submit(contextvars.copy_context().run, call) for call in calls]
        return [future.result() for future in futures]
