"""One durable job/task system for all long work (evaluation, batch analysis, briefings, REST jobs).

A job is one piece of long work, identified by (kind, config hash): opening it again with the same
configuration returns the same job, so a rerun resumes instead of starting over. Its tasks are the
units of work (one key each, e.g. "AAPL|2024-06-28"), stored with status, attempts, error and a
JSON result. Pure: DTOs, the storage port and the runner; `stockdesk.shared.db.task_store` is the
SQL implementation of the port. The usual round:

    store = SqlTaskStore(database)
    job, added = store.open_with_tasks("evaluate", config, keys)  # only missing keys are inserted
    counts = run_tasks(store, job.id, work, batch_size=50, max_attempts=3)
    # counts.failed > 0: those tasks exhausted their attempts; store.tasks(job.id, FAILED) lists them

One runner per job at a time: opening a job puts tasks left `running` by a process that died back
to `pending`; a job whose runner is alive (its pid on this host, else a recent heartbeat) comes
back untouched with `live` set, and callers must not start a second runner on it.
"""

from stockdesk.shared.tasks.canonical import canonical_json, config_hash, jsonable, plain_json
from stockdesk.shared.tasks.dtos import (
    ENDED_JOB_STATUSES,
    JobPage,
    JobRecord,
    JobStatus,
    JobSummary,
    TaskCounts,
    TaskRecord,
    TaskStatus,
)
from stockdesk.shared.tasks.engine import BatchWorker, InlineEngine, ITaskEngine, ThreadEngine
from stockdesk.shared.tasks.ports import ITaskStore
from stockdesk.shared.tasks.runner import Backoff, ProgressCallback, RunBudget, error_line, run_tasks

__all__ = [
    "ENDED_JOB_STATUSES",
    "Backoff",
    "BatchWorker",
    "ITaskEngine",
    "ITaskStore",
    "InlineEngine",
    "JobPage",
    "JobRecord",
    "JobStatus",
    "JobSummary",
    "ProgressCallback",
    "RunBudget",
    "TaskCounts",
    "TaskRecord",
    "TaskStatus",
    "ThreadEngine",
    "canonical_json",
    "config_hash",
    "error_line",
    "jsonable",
    "plain_json",
    "run_tasks",
]
