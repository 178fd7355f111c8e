"""Run a job's tasks in batches until nothing is left to claim; resumable and retrying.

Each round claims up to `batch_size` claimable tasks (pending, or failed with attempts left), marks
them running (one more attempt), and hands their keys to the batch worker. The worker returns a
result dict per key (stored as JSON; see `canonical.jsonable`) or an Exception instance for a key
that failed; raising fails the whole batch with that error. A key missing from the answer, or a
result that is not a JSON-able dict, fails that key. Successes are stored in one transaction,
failures in another, so a finished task is never computed again, whatever happens later.

Cancellation (`shared.tasks.cancel`) is checked before each batch: the job becomes `cancelled`
(or `interrupted` when the server is stopping), JobCancelled propagates, and a later run resumes.

Interruptions: on KeyboardInterrupt (Ctrl-C) or SystemExit (e.g. a SIGTERM handler) the batch in
hand goes back to pending without counting the attempt, the job becomes `interrupted`, and the
exception propagates. A killed process cannot clean up: its `running` tasks are put back to
pending when the job is opened again (`ITaskStore.open_job`). Only the unfinished batch is redone.

The job ends `done` when every task is done, `failed` when some tasks exhausted `max_attempts`
(they stay failed with their error and are counted in the returned TaskCounts; a later run with a
higher `max_attempts` retries them).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from stockdesk.shared.tasks.cancel import JobCancelled, check_cancelled
from stockdesk.shared.tasks.canonical import jsonable
from stockdesk.shared.tasks.dtos import JobStatus, TaskCounts
from stockdesk.shared.tasks.ports import ITaskStore

logger = logging.getLogger(__name__)

BatchWorker = Callable[[list[str]], Mapping[str, Mapping[str, Any] | BaseException]]
ProgressCallback = Callable[[int, int], None]
MAX_ERROR_CHARS = 2000


def error_line(exc: BaseException) -> str:
    """`ExcType: message` on one line (whitespace collapsed, at most MAX_ERROR_CHARS characters)."""
    message = " ".join(str(exc).split())
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"


def _outcomes(keys: list[str], answer: Mapping[str, Any]) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """The worker's answer split into JSON results and one-line errors, one entry per key."""
    results: dict[str, dict[str, Any]] = {}
    errors: dict[str, str] = {}
    for key in keys:
        if key not in answer:
            errors[key] = "MissingResult: the worker returned nothing for this task"
            continue
        value = answer[key]
        if isinstance(value, BaseException):
            errors[key] = error_line(value)
        elif not isinstance(value, Mapping):
            errors[key] = f"TypeError: the worker returned {type(value).__name__}, not a dict"
        else:
            try:
                results[key] = jsonable(value)  # type: ignore[assignment]
            except (TypeError, ValueError) as exc:
                errors[key] = error_line(exc)
    return results, errors


def _finish(store: ITaskStore, job_id: str, max_attempts: int) -> TaskCounts:
    counts = store.counts(job_id)
    if counts.failed:
        error = f"{counts.failed} of {counts.total} tasks failed after {max_attempts} attempts"
        store.set_job_status(job_id, JobStatus.FAILED, error)
    else:
        store.set_job_status(job_id, JobStatus.DONE)
    return counts


def run_tasks(
    store: ITaskStore,
    job_id: str,
    work: BatchWorker,
    *,
    batch_size: int = 100,
    max_attempts: int = 3,
    on_progress: ProgressCallback | None = None,
) -> TaskCounts:
    """Work through the job's claimable tasks; returns the final counts (see the module docstring).

    `on_progress(done, total)` is called after each batch. Raises KeyError if the job does not exist.
    """
    if batch_size < 1 or max_attempts < 1:
        raise ValueError("batch_size and max_attempts must be at least 1")
    store.set_job_status(job_id, JobStatus.RUNNING)
    keys: list[str] = []
    try:
        while True:
            check_cancelled()
            batch = store.claimable(job_id, max_attempts, limit=batch_size)
            if not batch:
                break
            keys = [task.key for task in batch]
            store.mark_running(job_id, keys)
            try:
                answer: Mapping[str, Any] = work(keys)
            except JobCancelled:  # stopped inside the batch (between two analyses): its tasks stay pending
                store.release(job_id, keys)
                keys = []
                raise
            except Exception as exc:  # the whole batch failed
                logger.warning("job %s: a batch of %d tasks failed: %s", job_id, len(keys), error_line(exc))
                answer = dict.fromkeys(keys, exc)
            results, errors = _outcomes(keys, answer)
            store.complete(job_id, results)
            store.fail(job_id, errors)
            keys = []
            if on_progress is not None:
                counts = store.counts(job_id)
                on_progress(counts.done, counts.total)
    except (KeyboardInterrupt, SystemExit):
        store.release(job_id, keys)
        store.set_job_status(job_id, JobStatus.INTERRUPTED, "interrupted")
        raise
    except JobCancelled as exc:  # between batches: nothing in hand
        interrupted = "interrupted" in exc.message
        store.set_job_status(
            job_id, JobStatus.INTERRUPTED if interrupted else JobStatus.CANCELLED, exc.message
        )
        raise
    except BaseException as exc:  # the store or the progress callback failed: record it, best effort
        try:
            store.release(job_id, keys)
            store.set_job_status(job_id, JobStatus.FAILED, error_line(exc))
        except Exception:
            logger.exception("job %s: could not record the failure", job_id)
        raise
    return _finish(store, job_id, max_attempts)
