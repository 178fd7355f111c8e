"""Where a job's task batches run: in this thread, in a thread pool, or on Ray (`ray_engine`).

The runner (`runner.run_tasks`) owns the bookkeeping (claims, retries, results in the store); an
engine only runs `work(keys)` somewhere and says when it is done. Every engine answers the same
way: a mapping of key -> result dict or Exception, or one exception for the whole batch.

`work` must be picklable for the Ray engine (a module-level function or an object whose state
pickles); the local engines accept any callable.
"""

from __future__ import annotations

import contextvars
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass, field
from typing import Any

BatchWorker = Callable[[list[str]], Mapping[str, Mapping[str, Any] | BaseException]]
Outcome = Mapping[str, Mapping[str, Any] | BaseException] | BaseException


@dataclass
class Submitted:
    """One batch handed to an engine; `ref` is the engine's own handle."""

    keys: list[str]
    ref: Any = None
    outcome: Outcome | None = field(default=None, repr=False)


class ITaskEngine(ABC):
    """Runs batches of task keys; `workers` batches may be in flight at once."""

    name: str
    workers: int

    @abstractmethod
    def submit(self, work: BatchWorker, keys: list[str]) -> Submitted:
        """Start `work(keys)`; the inline engine runs it before returning."""

    @abstractmethod
    def wait(self, pending: list[Submitted], timeout: float) -> list[Submitted]:
        """The batches among `pending` that finished (at least one, unless `timeout` passed)."""

    @abstractmethod
    def outcome(self, batch: Submitted) -> Outcome:
        """What a finished batch answered: per-key results/exceptions, or the batch's exception."""

    def cancel(self, pending: list[Submitted]) -> None:  # noqa: B027 - optional
        """Stop batches still running, best effort (their tasks go back to pending anyway)."""

    def close(self) -> None:  # noqa: B027 - optional
        """Release workers."""


class InlineEngine(ITaskEngine):
    """One batch at a time in the caller's thread: the default, and how Ctrl-C reaches the work."""

    name = "inline"
    workers = 1

    def submit(self, work: BatchWorker, keys: list[str]) -> Submitted:
        batch = Submitted(keys)
        try:
            batch.outcome = work(keys)
        except Exception as exc:
            batch.outcome = exc
        return batch

    def wait(self, pending: list[Submitted], timeout: float) -> list[Submitted]:
        return list(pending)

    def outcome(self, batch: Submitted) -> Outcome:
        assert batch.outcome is not None
        return batch.outcome


class ThreadEngine(ITaskEngine):
    """`workers` batches at once in threads of this process, each in a copy of the caller's context.

    Suits work that waits (remote LLM calls): the copied context carries the job's cancel token,
    the LLM run scope and usage meters, as the executor's own job threads do.
    """

    name = "threads"

    def __init__(self, workers: int):
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self.workers = workers
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="stockdesk-task")

    def submit(self, work: BatchWorker, keys: list[str]) -> Submitted:
        context = contextvars.copy_context()
        return Submitted(keys, self._pool.submit(context.run, work, keys))

    def wait(self, pending: list[Submitted], timeout: float) -> list[Submitted]:
        by_future: dict[Future[Any], Submitted] = {batch.ref: batch for batch in pending}
        done, _ = wait_futures(list(by_future), timeout=timeout, return_when=FIRST_COMPLETED)
        return [by_future[future] for future in done]

    def outcome(self, batch: Submitted) -> Outcome:
        future: Future[Any] = batch.ref
        exc = future.exception()
        return exc if exc is not None else future.result()

    def cancel(self, pending: list[Submitted]) -> None:
        for batch in pending:
            batch.ref.cancel()  # only a batch not started yet; a running one finishes its key

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
