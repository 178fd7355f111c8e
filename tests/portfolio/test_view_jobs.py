"""The portfolio view as a job of the one task system (kind `portfolio_view`) over a real store and
the real SQL task store: one task per name's verdict, then the assembly; the same request names the
same job and a finished one is served again; a Ctrl-C or a cancel keeps the finished names and a
resume computes only the missing ones (the verdict calls are counted through a wrapped verdict
function); a name whose verdict fails leaves the job failed naming it, and a resume finishes it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import pytest

from stockdesk.entrypoints.container import AppContainer
from stockdesk.portfolio.application.market import PortfolioMarket
from stockdesk.portfolio.application.view_jobs import JOB_KIND, VIEW_KEY, PortfolioViewJobs
from stockdesk.portfolio.application.view_service import PortfolioViewService
from stockdesk.portfolio.domain.errors import PortfolioJobNotFinishedError, PortfolioJobNotFoundError
from stockdesk.portfolio.domain.view import NameVerdict
from stockdesk.shared.config import Settings
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.shared.tasks import JobStatus, TaskStatus
from stockdesk.shared.tasks.cancel import CancelToken, JobCancelled, set_token
from tests.portfolio.test_view import scripted
from tests.portfolio.view_market import AS_OF, CAR, SYMBOLS, populate


class CountedVerdicts:
    """The scripted verdicts, counting each symbol asked for; `on_call[n]` runs once, at the n-th call."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.on_call: dict[int, object] = {}

    def __call__(self, symbols: list[str], day: date) -> list[NameVerdict]:
        self.asked += symbols
        action = self.on_call.pop(len(self.asked), None)
        if callable(action):
            action()
        return scripted(symbols, day)


@pytest.fixture
def app(settings: Settings) -> Iterator[AppContainer]:
    container = AppContainer(settings)
    populate(container.database)
    container.portfolio.watchlists.add("desk", list(SYMBOLS))
    yield container
    container.close()


def jobs_of(app: AppContainer, verdicts: CountedVerdicts) -> tuple[PortfolioViewService, PortfolioViewJobs]:
    market = PortfolioMarket(app.data.securities, app.data.market_frames)
    service = PortfolioViewService(app.portfolio.watchlists, app.portfolio.holdings, market, verdicts)
    return service, PortfolioViewJobs(service, SqlTaskStore(app.database))


def test_a_job_computes_each_name_once_then_the_view_and_serves_it_again(app: AppContainer) -> None:
    verdicts = CountedVerdicts()
    service, jobs = jobs_of(app, verdicts)
    request = service.check(AS_OF, watchlist="desk", capital=500_000)
    job = jobs.start(request)
    assert (job.status, job.done, job.total, job.assembled) == ("pending", 0, len(SYMBOLS), False)
    seen: list[int] = []
    done = jobs.execute(job.job_id, on_progress=lambda j: seen.append(j.done))
    assert done.status == "done" and done.assembled and verdicts.asked == list(SYMBOLS)
    assert seen[: len(SYMBOLS)] == list(range(1, len(SYMBOLS) + 1))  # a step per name, then the view
    view = jobs.result(job.job_id)
    assert view == service.view(AS_OF, watchlist="desk", capital=500_000)  # the same as in one go
    tasks = SqlTaskStore(app.database).tasks(job.job_id)
    assert [t.key for t in tasks][-1] == VIEW_KEY and all(t.status is TaskStatus.DONE for t in tasks)
    assert NameVerdict.model_validate(tasks[0].result).symbol == SYMBOLS[0]  # typed results
    asked = len(verdicts.asked)
    again = jobs.start(service.check(AS_OF, watchlist="desk", capital=500_000))
    assert again.job_id == job.job_id and again.status == "done"  # the same request, the same job
    assert jobs.execute(again.job_id).status == "done" and len(verdicts.asked) == asked
    other = jobs.start(service.check(AS_OF, watchlist="desk", capital=600_000))
    assert other.job_id != job.job_id and other.status == "pending"
    app.portfolio.holdings.set(CAR, 1_000, 9.0)  # another book: another job
    assert jobs.start(service.check(AS_OF, watchlist="desk", capital=500_000)).job_id != job.job_id


def test_an_interrupted_job_resumes_with_only_the_missing_names(app: AppContainer) -> None:
    verdicts = CountedVerdicts()
    service, jobs = jobs_of(app, verdicts)
    job = jobs.start(service.check(AS_OF, watchlist="desk"))

    def ctrl_c() -> None:
        raise KeyboardInterrupt

    verdicts.on_call[3] = ctrl_c
    with pytest.raises(KeyboardInterrupt):
        jobs.execute(job.job_id)
    stopped = jobs.status(job.job_id)
    assert (stopped.status, stopped.done) == ("interrupted", 2)
    with pytest.raises(PortfolioJobNotFinishedError):
        jobs.result(job.job_id)
    verdicts.asked.clear()
    assert jobs.execute(job.job_id).status == "done"
    assert verdicts.asked == list(SYMBOLS[2:])  # the third name again (its run was cut), then the rest
    assert len(jobs.result(job.job_id).allocations) == len(SYMBOLS)


def test_a_cancelled_job_stops_after_the_name_and_resumes(app: AppContainer) -> None:
    verdicts = CountedVerdicts()
    service, jobs = jobs_of(app, verdicts)
    job = jobs.start(service.check(AS_OF, watchlist="desk"))
    token = CancelToken()
    verdicts.on_call[2] = lambda: token.cancel("cancelled by the user")
    reset = set_token(token)
    try:
        with pytest.raises(JobCancelled):
            jobs.execute(job.job_id)
    finally:
        set_token(None)
        del reset
    stopped = jobs.status(job.job_id)
    assert (stopped.status, stopped.done) == ("cancelled", 2)  # the name in hand finished, kept
    verdicts.asked.clear()
    assert jobs.execute(job.job_id).status == "done" and verdicts.asked == list(SYMBOLS[2:])


def test_a_failed_verdict_fails_the_job_naming_it_and_a_resume_finishes(app: AppContainer) -> None:
    verdicts = CountedVerdicts()
    service, jobs = jobs_of(app, verdicts)
    job = jobs.start(service.check(AS_OF, watchlist="desk"))

    def broken() -> None:
        raise RuntimeError("the store went away")

    verdicts.on_call[2] = broken
    failed = jobs.execute(job.job_id)
    assert failed.status == JobStatus.FAILED.value and failed.failed == 1 and not failed.assembled
    assert failed.error is not None and SYMBOLS[1] in failed.error and "the store went away" in failed.error
    verdicts.asked.clear()
    assert jobs.execute(job.job_id).status == "done" and verdicts.asked == [SYMBOLS[1]]


def test_an_unknown_job_is_404(app: AppContainer) -> None:
    _, jobs = jobs_of(app, CountedVerdicts())
    with pytest.raises(PortfolioJobNotFoundError):
        jobs.status("nope")
    store = SqlTaskStore(app.database)
    other, _ = store.open_with_tasks("briefing", {"x": 1}, ["a"])
    with pytest.raises(PortfolioJobNotFoundError):
        jobs.status(other.id)
    assert JOB_KIND == "portfolio_view"
