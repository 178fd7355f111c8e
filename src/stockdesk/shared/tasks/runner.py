"""Run a job's tasks until nothing is left to claim: resumable, retrying with backoff, on any engine.

Each round claims claimable tasks (pending, or failed with attempts left once their backoff has
passed), marks them running (one more attempt) and hands batches of up to `batch_size` keys to
the engine (`engine.py`: inline by default, a thread pool, or Ray), keeping up to
`engine.workers` batches in flight. A batch answers a result dict per key (stored as JSON; see
`canonical.plain_json`) or an Exception for a key that failed; an exception for the whole batch
fails all its keys. A key missing from the answer, or a result that is not a JSON-able dict,
fails that key. Each finished batch is stored at once (successes in one transaction, failures
in another), so a finished task is never computed again, whatever happens later.

Retries: a failed task with attempts left waits `backoff(attempts)` (exponential, capped) before
it can be claimed again; the runner sleeps until then when nothing else is left.

Cancellation: between batches the runner checks the job's cancel token (`shared.tasks.cancel`,
the server's jobs) and a stop request stored on the job (`ITaskStore.request_cancel`, e.g.
`stockdesk jobs cancel` from another process). Batches in flight are cancelled and their tasks go
back to pending; the job becomes `cancelled` (or `interrupted` when the server is stopping) and
JobCancelled propagates. A later run resumes.

Budget: with a `RunBudget`, the tokens and cost in finished tasks' results (`result["usage"]`)
are summed; once a limit is reached no new task starts, the batches in flight finish, and the job
ends `stopped` with the reason. Running it again with a higher budget resumes it.

Interruptions: on KeyboardInterrupt (Ctrl-C) or SystemExit (e.g. a SIGTERM handler) the batches
in hand go back to pending without counting the attempt, the job becomes `interrupted`, and the
exception propagates. A killed process cannot clean up: its `running` tasks are put back to
pending when the job is opened again (`ITaskStore.open_job`). Only unfinished tasks are redone.

The job ends `done` when every task is done (never while a task is pending or running: it is then
`interrupted`), `failed` when some tasks exhausted `max_attempts`
(they stay failed with their error and are counted in the returned TaskCounts; a later run with a
higher `max_attempts` retries them).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from stockdesk.shared.errors import ConflictException
from stockdesk.shared.tasks.cancel import JobCancelled, check_cancelled
from stockdesk.shared.tasks.canonical import plain_json
from stockdesk.shared.tasks.dtos import JobStatus, TaskCounts, TaskRecord, TaskStatus
from stockdesk.shared.tasks.engine import BatchWorker, InlineEngine, ITaskEngine, Submitted
from stockdesk.shared.tasks.liveness import HEARTBEAT_SECONDS, this_runner
from stockdesk.shared.tasks.ports import ITaskStore

logger = logging.getLogger(__name__)

ProgressCallback = Callable[[int, int], None]


class JobAlreadyRunning(ConflictException):
    """Another live process runs this job: one runner per job (see `liveness`)."""

    code = "JOB_RUNNING"


MAX_ERROR_CHARS = 2000
POLL_SECONDS = 0.5  # how often a waiting runner looks at stop requests


def error_line(exc: BaseException) -> str:
    """`ExcType: message` on one line (whitespace collapsed, at most MAX_ERROR_CHARS characters)."""
    message = " ".join(str(exc).split())
    name = getattr(exc, "type_name", None) or type(exc).__name__  # a Ray worker's exception keeps its name
    text = f"{name}: {message}" if message else name
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
                results[key] = plain_json(value)  # type: ignore[assignment]
            except (TypeError, ValueError) as exc:
                errors[key] = error_line(exc)
    return results, errors


@dataclass(frozen=True)
class Backoff:
    """Seconds a failed task waits before its next attempt: base * 2**(attempts-1), at most `cap`."""

    base: float = 1.0
    cap: float = 60.0

    def seconds(self, attempts: int) -> float:
        return min(self.cap, self.base * 2 ** max(0, attempts - 1))


@dataclass(frozen=True)
class RunBudget:
    """A run-wide limit on what finished tasks spent (their results' `usage.tokens` / `usage.cost_usd`)."""

    max_tokens: int | None = None
    max_cost_usd: float | None = None

    @staticmethod
    def of(max_tokens: int | None, max_cost_usd: float | None) -> RunBudget | None:
        """The budget a command's --max-tokens/--max-cost ask for; None when neither is given."""
        if max_tokens is None and max_cost_usd is None:
            return None
        return RunBudget(max_tokens, max_cost_usd)

    def reached(self, tokens: int, cost: float) -> str | None:
        """Why no new task may start, or None."""
        if self.max_tokens is not None and tokens >= self.max_tokens:
            return f"token budget reached: {tokens:,} of {self.max_tokens:,} tokens spent"
        if self.max_cost_usd is not None and cost >= self.max_cost_usd:
            return f"cost budget reached: ${cost:.4f} of ${self.max_cost_usd:.4f} spent"
        return None


def spent(results: list[Mapping[str, Any] | None]) -> tuple[int, float]:
    """Tokens and cost recorded in task results (`{"usage": {"tokens": .., "cost_usd": ..}}`)."""
    tokens, cost = 0, 0.0
    for result in results:
        usage = (result or {}).get("usage") or {}
        tokens += int(usage.get("tokens") or 0)
        cost += float(usage.get("cost_usd") or 0.0)
    return tokens, cost


FailureWords = Callable[[list[TaskRecord]], str | None]
"""Words a job kind gives its failed tasks ("XMPL: the panel gave no JSON") in place of the
runner's count; None keeps the count. Written with the status in one step, so nobody polling the
job ever sees the count first and the named cause a moment later."""


def _finish(
    store: ITaskStore, job_id: str, max_attempts: int, failure_words: FailureWords | None = None
) -> TaskCounts:
    """The job's end: `done` only when every task is done. Tasks still pending or running here
    (nothing this run could claim: another runner's, say) leave it `interrupted`, which a resume
    goes on from; `done` with tasks left would make every later resume refuse it as finished."""
    counts = store.counts(job_id)
    left = counts.pending + counts.running
    if left:
        error = f"interrupted: {left} of {counts.total} tasks still to compute; resume it to finish them"
        store.set_job_status(job_id, JobStatus.INTERRUPTED, error)
    elif counts.failed:
        worded = failure_words(store.tasks(job_id, TaskStatus.FAILED)) if failure_words else None
        error = worded or f"{counts.failed} of {counts.total} tasks failed after {max_attempts} attempts"
        store.set_job_status(job_id, JobStatus.FAILED, error)
    else:
        store.set_job_status(job_id, JobStatus.DONE)
    return counts


class _Run:
    """One pass of the runner over a job: what is in flight and what was spent."""

    def __init__(
        self,
        store: ITaskStore,
        job_id: str,
        work: BatchWorker,
        engine: ITaskEngine,
        batch_size: int,
        max_attempts: int,
        backoff: Backoff,
        budget: RunBudget | None,
        on_progress: ProgressCallback | None,
    ):
        self.store, self.job_id, self.work, self.engine = store, job_id, work, engine
        self.batch_size, self.max_attempts, self.backoff = batch_size, max_attempts, backoff
        self.budget, self.on_progress = budget, on_progress
        self.in_flight: list[Submitted] = []
        self.tokens, self.cost = spent([t.result for t in store.tasks(job_id)]) if budget else (0, 0.0)
        self.stop_reason: str | None = None

    def keys_in_flight(self) -> list[str]:
        return [key for batch in self.in_flight for key in batch.keys]

    def check_stop_requests(self) -> None:
        check_cancelled()
        reason = self.store.cancel_requested(self.job_id)
        if reason is not None:
            raise JobCancelled(f"job {reason}")

    def fill(self) -> None:
        """Start batches until the engine is full, the budget is spent or nothing can be claimed."""
        while len(self.in_flight) < self.engine.workers:
            if self.budget is not None:
                self.stop_reason = self.budget.reached(self.tokens, self.cost)
                if self.stop_reason:
                    return
            free = self.engine.workers - len(self.in_flight)
            claimed = self.store.claimable(
                self.job_id, self.max_attempts, limit=free * self.batch_size, now=datetime.now(UTC)
            )
            if not claimed:
                return
            for start in range(0, len(claimed), self.batch_size):
                self._start([t.key for t in claimed[start : start + self.batch_size]])

    def _start(self, keys: list[str]) -> None:
        self.store.mark_running(self.job_id, keys)
        placeholder = Submitted(keys)
        self.in_flight.append(placeholder)  # counted in flight while the inline engine runs it
        batch = self.engine.submit(self.work, keys)
        self.in_flight[self.in_flight.index(placeholder)] = batch

    def collect(self, timeout: float) -> None:
        """Store whatever finished within `timeout` seconds (all of it, even when one was cancelled)."""
        if not self.in_flight:
            return
        cancelled: JobCancelled | None = None
        for batch in self.engine.wait(self.in_flight, timeout):
            try:
                self._store(batch)
            except JobCancelled as exc:
                cancelled = exc
            self.in_flight.remove(batch)  # only once stored (or released): never lost in between
        if cancelled is not None:
            raise cancelled
        if self.on_progress is not None:
            counts = self.store.counts(self.job_id)
            self.on_progress(counts.done, counts.total)

    def _store(self, batch: Submitted) -> None:
        answer = self.engine.outcome(batch)
        if isinstance(answer, JobCancelled):  # stopped inside the batch: its tasks stay pending
            self.store.release(self.job_id, batch.keys)
            raise answer
        if isinstance(answer, BaseException):
            logger.warning(
                "job %s: a batch of %d tasks failed: %s", self.job_id, len(batch.keys), error_line(answer)
            )
            answer = dict.fromkeys(batch.keys, answer)
        results, errors = _outcomes(batch.keys, answer)
        self.store.complete(self.job_id, results)
        if errors:
            attempts = {t.key: t.attempts for t in self._tasks(errors)}
            now = datetime.now(UTC)
            retry_at = {
                key: now + timedelta(seconds=self.backoff.seconds(attempts.get(key, 1))) for key in errors
            }
            self.store.fail(self.job_id, errors, retry_at)
        if self.budget is not None:
            tokens, cost = spent(list(results.values()))
            self.tokens += tokens
            self.cost += cost

    def _tasks(self, keys: Mapping[str, str]) -> list[TaskRecord]:
        return [t for t in self.store.tasks(self.job_id, TaskStatus.RUNNING) if t.key in keys]

    def wait_for_retries(self) -> bool:
        """Sleep (watching for stop requests) until the next backoff ends; False if nothing waits."""
        retry_at = self.store.next_retry_at(self.job_id, self.max_attempts)
        if retry_at is None:
            return False
        while (left := (retry_at - datetime.now(UTC)).total_seconds()) > 0:
            self.check_stop_requests()
            time.sleep(min(POLL_SECONDS, left))
        return True

    def abandon(self) -> None:
        """Cancel the batches in flight and put their tasks back to pending (attempt not counted)."""
        keys = self.keys_in_flight()
        if self.in_flight:
            self.engine.cancel(self.in_flight)
        self.in_flight = []
        self.store.release(self.job_id, keys)


def run_tasks(
    store: ITaskStore,
    job_id: str,
    work: BatchWorker,
    *,
    batch_size: int = 100,
    max_attempts: int = 3,
    on_progress: ProgressCallback | None = None,
    engine: ITaskEngine | None = None,
    backoff: Backoff | None = None,
    budget: RunBudget | None = None,
    failure_words: FailureWords | None = None,
) -> TaskCounts:
    """Work through the job's claimable tasks; returns the final counts (see the module docstring).

    `on_progress(done, total)` is called after each finished batch; `failure_words` words a failed
    job's error (see `FailureWords`). Raises KeyError if the job does not exist.
    """
    if batch_size < 1 or max_attempts < 1:
        raise ValueError("batch_size and max_attempts must be at least 1")
    job = store.get_job(job_id)
    if job is None:
        raise KeyError(f"job {job_id} does not exist")
    if job.live and job.owner != this_runner():
        raise JobAlreadyRunning(
            f"job {job_id[:12]} is already running in process {job.owner}: follow it with "
            f"`stockdesk jobs show {job_id[:12]}`, stop it with `stockdesk jobs cancel {job_id[:12]}`"
        )
    engine = engine or InlineEngine()
    run = _Run(
        store, job_id, work, engine, batch_size, max_attempts, backoff or Backoff(), budget, on_progress
    )
    store.start_run(job_id)
    beating = _Heartbeat(store, job_id)
    try:
        while True:
            run.check_stop_requests()
            run.fill()
            if run.in_flight:
                run.collect(POLL_SECONDS)
                continue
            if run.stop_reason or not run.wait_for_retries():
                break
    except (KeyboardInterrupt, SystemExit):
        run.abandon()
        store.set_job_status(job_id, JobStatus.INTERRUPTED, "interrupted")
        raise
    except JobCancelled as exc:
        run.abandon()
        interrupted = "interrupted" in exc.message
        store.clear_cancel(job_id)
        store.set_job_status(
            job_id, JobStatus.INTERRUPTED if interrupted else JobStatus.CANCELLED, exc.message
        )
        raise
    except BaseException as exc:  # the store or the progress callback failed: record it, best effort
        try:
            run.abandon()
            store.set_job_status(job_id, JobStatus.FAILED, error_line(exc))
        except Exception:
            logger.exception("job %s: could not record the failure", job_id)
        raise
    finally:
        beating.stop()
    # the budget stops a job only if something is left: spent on the last batch, the job is finished
    if run.stop_reason and store.claimable(job_id, max_attempts, limit=1):
        store.set_job_status(job_id, JobStatus.STOPPED, run.stop_reason)
        return store.counts(job_id)
    return _finish(store, job_id, max_attempts, failure_words)


class _Heartbeat:
    """Tells the store every HEARTBEAT_SECONDS that this runner is alive, from a daemon thread (a
    batch on the inline engine may take minutes)."""

    def __init__(self, store: ITaskStore, job_id: str):
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._beat, args=(store, job_id), name=f"heartbeat-{job_id[:8]}", daemon=True
        )
        self._thread.start()

    def _beat(self, store: ITaskStore, job_id: str) -> None:
        while not self._stop.wait(HEARTBEAT_SECONDS):
            try:
                store.heartbeat(job_id)
            except Exception:  # a missed beat only makes the job look stale sooner
                logger.warning("job %s: could not write its heartbeat", job_id, exc_info=True)

    def stop(self) -> None:
        self._stop.set()
