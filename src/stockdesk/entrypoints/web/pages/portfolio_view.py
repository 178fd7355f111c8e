"""The Portfolio pages' view models: a view job's state and progress (the one job panel), and the
finished view as shown in the page's language (the rows the CLI's table and the HTML report read,
`portfolio.presentation.shown`) with its two charts' specs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stockdesk.entrypoints.web.pages.jobs_view import JobPanel
from stockdesk.portfolio.application import PortfolioView
from stockdesk.portfolio.application.charts import allocation_chart, value_chart
from stockdesk.portfolio.application.view_jobs import JOB_KIND, ViewJob
from stockdesk.portfolio.presentation.shown import shown_view

FINISHED = {"done": "completed", "failed": "failed", "cancelled": "cancelled", "interrupted": "interrupted"}


@dataclass(frozen=True)
class PortfolioForm:
    """The form's fields as typed (shown again with a refusal)."""

    source: str = "watchlist"
    watchlist: str = ""
    as_of: str = ""
    capital: str = ""
    cash: str = ""


@dataclass(frozen=True)
class ViewJobPage:
    """A view job as its page shows it: `state` is the executor's while it runs here, else how it
    ended; a job no process runs that did not finish may resume (only its missing names)."""

    job: ViewJob
    state: str
    live: bool

    @property
    def panel(self) -> JobPanel:
        return JobPanel(
            id=self.job.job_id, kind=JOB_KIND, state=self.state, live=self.live,
            done=self.job.done, total=self.job.total, settled=self.job.done + self.job.failed,
            resumable=not self.live and not self.job.live and self.state != "completed",
        )  # fmt: skip


def job_page(job: ViewJob, executor_state: str | None) -> ViewJobPage:
    """A stored unfinished job nothing runs here was cut off (or runs in another process: `job.live`)."""
    if executor_state is not None:
        return ViewJobPage(job, executor_state, True)
    if job.live:
        return ViewJobPage(job, "running", False)
    return ViewJobPage(job, FINISHED.get(job.status, "interrupted"), False)


def portfolio_page(view: PortfolioView, lang: str) -> dict[str, Any]:
    specs = [allocation_chart(view), value_chart(view)]
    return {
        "s": shown_view(view, lang),
        "alloc_chart": specs[0].model_dump(mode="json") if specs[0] else None,
        "value_chart": specs[1].model_dump(mode="json") if specs[1] else None,
    }
