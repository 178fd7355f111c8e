"""The jobs pages' view models: the jobs table's rows (active, and stopped ones that may resume) and
the one progress panel every job page shows (analyses, batches, syncs, evaluations, strategy runs,
briefings).

Each job links to the page that follows it; that page's Cancel and Resume post to the general jobs
routes with `back` naming it, and come back to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from stockdesk.entrypoints.web.pages.form_text import stamp
from stockdesk.shared.tasks.executor import ActiveJob
from stockdesk.shared.tasks.kinds import StoredJob

# job kind (as submitted to the executor, or as the task store keeps it) -> the page of one job of it
PAGES = {
    "analysis": "/analyses/{id}",
    "batch_analyze": "/batches/{id}",
    "briefing": "/briefings/{id}",
    "evaluation": "/evaluations/{id}",
    "evaluate": "/evaluations/{id}",  # an evaluation stopped in another process, as the store names it
    "strategy-run": "/strategy/runs/{id}",
    "sync": "/data/sync/{id}",
}
KNOWN_KINDS = ("analysis", "batch_analyze", "briefing", "evaluation", "strategy-run", "sync")  # named in i18n


@dataclass(frozen=True)
class JobRow:
    kind: str
    id: str
    state: str
    submitted: str
    href: str | None


def page_of(kind: str, job_id: str) -> str | None:
    return PAGES[kind].format(id=job_id) if kind in PAGES else None


def job_rows(active: list[ActiveJob]) -> list[JobRow]:
    return [
        JobRow(job.kind, job.job_id, job.state, stamp(job.submitted_at), page_of(job.kind, job.job_id))
        for job in active
    ]


def stopped_rows(stopped: list[StoredJob]) -> list[JobRow]:
    """Stopped jobs that may resume: their status, and when they last changed."""
    return [
        JobRow(job.kind, job.id, job.status.value, stamp(job.updated_at), page_of(job.kind, job.id))
        for job in stopped
    ]


def own_page(job_id: str, back: str | None) -> str | None:
    """`back` when it is the page of this job (what its Cancel and Resume come back to); anything
    else is ignored, so the jobs routes never redirect elsewhere."""
    pages = {page.format(id=job_id) for page in PAGES.values()}
    return back if back in pages else None


@dataclass(frozen=True)
class JobPanel:
    """What every job page's progress panel shows, whatever the kind: its state, how far it got
    (`done` of `total`; the bar fills to `settled`, which counts what failed for good too), whether
    Cancel (live, not cancelling yet) or Resume (stopped with work left) is offered. Its kind names
    its page, which its events hang off and its buttons come back to."""

    id: str
    kind: str
    state: str
    live: bool
    done: int
    total: int
    settled: int
    resumable: bool

    @property
    def page(self) -> str:
        return PAGES[self.kind].format(id=self.id)

    @property
    def cancellable(self) -> bool:
        return self.live and self.state != "cancelling"

    @property
    def cancel_action(self) -> str:
        return f"/jobs/{self.id}/cancel?back={quote(self.page)}"

    @property
    def resume_action(self) -> str:
        return f"/jobs/{self.id}/resume?back={quote(self.page)}"
