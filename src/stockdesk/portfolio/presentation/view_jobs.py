"""Start and resume a portfolio view as a server job: the one way the REST API and the web UI both
do it. The request is checked first (400 PORTFOLIO_SOURCE / PORTFOLIO_AMOUNT / PORTFOLIO_EMPTY, 404
WATCHLIST_NOT_FOUND), so a bad request never opens a job; the checked request names its durable
job, which is handed to the executor unless it is done, runs here already, or runs in another
process (a CLI `stockdesk portfolio`). A stopped view is resumed by its id through the job kinds
(`shared.tasks.kinds`), which call `resume_view`."""

from __future__ import annotations

from stockdesk.portfolio.application.view_jobs import JOB_KIND, PortfolioViewJobs, ViewJob
from stockdesk.portfolio.domain.view import ViewRequest
from stockdesk.shared.tasks.executor import JobExecutor

KIND = JOB_KIND


def launch_view(jobs: PortfolioViewJobs, executor: JobExecutor, request: ViewRequest) -> ViewJob:
    """Open (or reopen) the job of a checked request and submit what it still lacks; its state."""
    job = jobs.start(request)
    if job.status != "done" and not job.live and not jobs.is_running(job.job_id):
        resume_view(jobs, executor, job.job_id)
    return job


def resume_view(jobs: PortfolioViewJobs, executor: JobExecutor, job_id: str) -> None:
    """Hand the stored job to the executor: it computes the names still missing, then the view."""
    executor.submit(KIND, job_id, lambda: jobs.execute(job_id))
