"""Whether a job runs in this server now, and its executor state (queued, running, cancelling).

A stored status says how a job ended; only the executor knows whether it is still going here, so a
page follows a job live (SSE, Cancel) exactly while the executor holds it.
"""

from __future__ import annotations

from stockdesk.shared.tasks.executor import JobExecutor


def live_state(jobs: JobExecutor, job_id: str) -> str | None:
    """`queued`, `running` or `cancelling` while the executor holds the job; None otherwise."""
    return next((job.state for job in jobs.active() if job.job_id == job_id), None)
