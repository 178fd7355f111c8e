"""The run a piece of work belongs to (one analysis, one batch task), as a context variable.

LLM calls and web searches made inside `run_scope(run_id)` are audited under that run, whichever
context makes them; a context variable follows `asyncio.to_thread` and threads started with
`contextvars.copy_context`, so concurrent analyses never mix their rows.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager

_run_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("stockdesk_llm_run_id", default=None)


def active_run_id() -> str | None:
    """The run set by the innermost `run_scope`, or None outside any."""
    return _run_id.get()


@contextmanager
def run_scope(run_id: str) -> Iterator[str]:
    """Attribute everything audited inside the block to `run_id`."""
    token = _run_id.set(run_id)
    try:
        yield run_id
    finally:
        _run_id.reset(token)
