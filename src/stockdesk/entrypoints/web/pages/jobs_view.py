"""The jobs table's rows: each active job's kind, id, state, submission time and the page that follows it."""

from __future__ import annotations

from dataclasses import dataclass

from stockdesk.entrypoints.web.pages.form_text import stamp
from stockdesk.shared.tasks.executor import ActiveJob

# job kind (as submitted to the executor) -> the page of one job of that kind
PAGES = {
    "analysis": "/analyses/{id}",
    "briefing": "/briefings/{id}",
    "evaluation": "/evaluations/{id}",
    "strategy-run": "/strategy/runs/{id}",
    "sync": "/data/sync/{id}",
}


@dataclass(frozen=True)
class JobRow:
    kind: str
    id: str
    state: str
    submitted: str
    href: str | None


def job_rows(active: list[ActiveJob]) -> list[JobRow]:
    return [
        JobRow(
            kind=job.kind,
            id=job.job_id,
            state=job.state,
            submitted=stamp(job.submitted_at),
            href=PAGES[job.kind].format(id=job.job_id) if job.kind in PAGES else None,
        )
        for job in active
    ]
