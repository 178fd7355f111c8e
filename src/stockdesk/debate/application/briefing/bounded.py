"""At most `slots` of some blocking calls at a time, on run_in_parallel (so each call runs in a copy
of the caller's context: the LLM run id reaches it). A failing call's exception is returned in its
place, so one ticker's failure neither hides the others' results nor leaves them running unseen."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

from stockdesk.debate.application.parallel import run_in_parallel

R = TypeVar("R")


def run_bounded(calls: Sequence[Callable[[], R]], *, slots: int, name: str) -> list[R | Exception]:
    """Results (or exceptions) in the order of `calls`."""
    if not calls:
        return []
    gate = threading.BoundedSemaphore(max(1, slots))

    def gated(call: Callable[[], R]) -> Callable[[], R | Exception]:
        def run() -> R | Exception:
            with gate:
                try:
                    return call()
                except Exception as exc:  # handed back in the call's place
                    return exc

        return run

    return run_in_parallel([gated(call) for call in calls], name=name)
