"""The jobs pages' view models: the jobs table's rows (active, and stopped ones that may resume), the
job history's filters, pages and rows, and the one progress panel every job page shows (analyses,
batches, syncs, evaluations, strategy runs, briefings).

Each job links to the page that follows it; that page's Cancel and Resume post to the general jobs
routes with `back` naming it, and come back to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from stockdesk.entrypoints.web.pages.form_text import stamp
from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.redact import redact_text
from stockdesk.shared.tasks.executor import ActiveJob
from stockdesk.shared.tasks.kinds import HISTORY_STATUSES, PastJob, StoredJob

# job kind (as submitted to the executor, or as the task store keeps it) -> the page of one job of it
PAGES = {
    "analysis": "/analyses/{id}",
    "batch_analyze": "/batches/{id}",
    "briefing": "/briefings/{id}",
    "evaluation": "/evaluations/{id}",
    "evaluate": "/evaluations/{id}",  # an evaluation stopped in another process, as the store names it
    "portfolio_view": "/portfolio/jobs/{id}",
    "strategy-run": "/strategy/runs/{id}",
    "sync": "/data/sync/{id}",
    "scheduled_run": "/schedules/jobs/{id}",  # leads to the run's row on its schedule's page
}
# named in i18n (jobs.kind.*); batch_analyze and strategy_sweep are the CLI's and REST's batch kinds, kept
# in the task store
KNOWN_KINDS = (
    "analysis",
    "briefing",
    "evaluation",
    "portfolio_view",
    "strategy-run",
    "sync",
    "batch_analyze",
    "strategy_sweep",
    "scheduled_run",
)
HISTORY_PAGE_SIZE = 20
HISTORY_STATUS_NAMES = tuple(status.value for status in HISTORY_STATUSES)


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


@dataclass(frozen=True)
class HistoryFilters:
    """The job history's query as typed (empty = every kind, every ended status) and its page (from 1).
    A page that is not a whole number from 1 is 400 BAD_PAGE; kinds and statuses are checked by the
    job kinds (BAD_JOB_KIND, BAD_JOB_STATUS)."""

    kind: str = ""
    status: str = ""
    page: int = 1

    @classmethod
    def parse(cls, kind: str, status: str, page: str) -> HistoryFilters:
        typed = page.strip() or "1"
        if not typed.isdigit() or int(typed) < 1:
            raise BadRequestException(
                f"page must be a whole number from 1, not '{page}'", code="BAD_PAGE", details={"value": page}
            )
        return cls(kind.strip(), status.strip().lower(), int(typed))

    def query(self) -> dict[str, Any]:
        """Keyword arguments of JobKinds.history."""
        return {
            "kind": self.kind or None,
            "status": self.status or None,
            "offset": (self.page - 1) * HISTORY_PAGE_SIZE,
            "limit": HISTORY_PAGE_SIZE,
        }

    def url(self, page: int) -> str:
        """The history at another page, with the same filters."""
        params = {k: v for k, v in (("kind", self.kind), ("status", self.status)) if v}
        if page > 1:
            params["page"] = str(page)
        return "/jobs/history" + (f"?{urlencode(params)}" if params else "")


@dataclass(frozen=True)
class HistoryRow:
    """One ended job: what it was, when, how far it got (`done` of `total` tasks, `failed` of them)
    and how it ended (`error`, redacted, when the store kept one)."""

    kind: str
    id: str
    state: str
    submitted: str
    updated: str
    href: str | None
    done: int
    failed: int
    total: int
    error: str | None


def history_rows(jobs: list[PastJob]) -> list[HistoryRow]:
    return [
        HistoryRow(job.kind, job.id, job.status.value, stamp(job.created_at), stamp(job.updated_at),
                   page_of(job.kind, job.id), job.counts.done, job.counts.failed, job.counts.total,
                   redact_text(job.error) if job.error else None)
        for job in jobs
    ]  # fmt: skip


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


@dataclass(frozen=True)
class CountedJob:
    """What a job run over many items (a batch's symbols, an evaluation's points) shows as a list
    row: its counts, whether it is live here or in another process, and its panel."""

    id: str
    state: str
    live: bool
    done: int
    failed: int
    pending: int
    total: int
    error: str | None
    created: str

    @property
    def work_left(self) -> bool:
        """Stopped with items not done: running it again (resume or restart) does only those."""
        return not self.live and self.pending > 0

    def panel_as(self, kind: str, resumable: bool) -> JobPanel:
        """The one job panel; its bar fills with the items done and those failed for good alike."""
        return JobPanel(
            id=self.id, kind=kind, state=self.state, live=self.live,
            done=self.done, total=self.total, settled=self.done + self.failed, resumable=resumable,
        )  # fmt: skip
