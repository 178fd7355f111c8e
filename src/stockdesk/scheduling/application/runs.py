"""Firing a schedule: one run per schedule and day, run as a `scheduled_run` job.

The claim comes first: the (schedule, day) row is inserted under a UNIQUE constraint, so of two
scheduler processes only one runs the day; the other's claim fails and it skips. Then, unless data is
synced first, a day without bars in the store is recorded as skipped at once (no job); otherwise the
run's job is opened (keyed by schedule and day) and its steps run (`steps.py`). A run whose process
died (claimed or running, its claimer gone, its job not live) is taken over by one restarted scheduler
(a compare-and-set on the claimer) or by `stockdesk jobs resume`, and goes on from its unfinished step.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field

from stockdesk.scheduling.application.ports import RunPorts
from stockdesk.scheduling.application.steps import (
    BATCH,
    CALENDAR,
    DELIVER,
    PAPER,
    SYNC,
    RunSteps,
    by_market,
    digest_rows,
    no_bars_reason,
    open_markets,
    step_keys,
)
from stockdesk.scheduling.domain.errors import RunExists, ScheduleNotFound
from stockdesk.scheduling.domain.model import OPEN_STATUSES, Delivery, RunStatus, Schedule, ScheduleRun
from stockdesk.scheduling.domain.ports import IScheduleStore
from stockdesk.shared.errors import NotFoundException
from stockdesk.shared.tasks import Backoff, ITaskStore, JobStatus, run_tasks
from stockdesk.shared.tasks.cancel import JobCancelled
from stockdesk.shared.tasks.executor import JobExecutor
from stockdesk.shared.tasks.liveness import runner_alive, this_runner

logger = logging.getLogger(__name__)
KIND = "scheduled_run"


class Fired(BaseModel):
    """What one fire did: `run` is None when another runner had claimed the day."""

    schedule: str
    day: date
    fired_at: datetime
    run: ScheduleRun | None = None
    note: str = ""
    caught_up: bool = Field(default=False, description="a fire missed while no scheduler ran, run at start")

    def line(self) -> str:
        """One line for the scheduler's output and log."""
        when = self.fired_at.strftime("%Y-%m-%d %H:%M %z")
        late = " (missed while no scheduler ran, caught up)" if self.caught_up else ""
        head = f"{when} {self.schedule} {self.day.isoformat()}{late}"
        run = self.run
        if run is None:
            return f"{head}: skipped, {self.note}"
        if run.status is RunStatus.SKIPPED:
            return f"{head}: skipped, {run.reason}"
        if run.status is RunStatus.DONE:
            sent = ", ".join(f"{d.channel} {d.status}" for d in run.deliveries) or "no channel"
            return f"{head}: ran {len(run.rows)} symbols, reports in {run.report_dir}; digest: {sent}"
        return f"{head}: {run.status.value}{f', {run.reason}' if run.reason else ''}"


class ScheduledRuns:
    def __init__(
        self,
        store: IScheduleStore,
        tasks: ITaskStore,
        ports: RunPorts,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ):
        self._store = store
        self._tasks = tasks
        self._ports = ports
        self._now = now

    def _schedule(self, name: str) -> Schedule:
        found = self._store.get(name)
        if found is None:
            raise ScheduleNotFound(name)
        return found

    # -- firing -----------------------------------------------------------------------------------
    def fire(self, schedule: Schedule, fired_at: datetime, *, caught_up: bool = False) -> Fired:
        """The schedule's run of the local day at `fired_at`, if this process wins its claim."""
        day = _local_day(schedule, fired_at)
        run = self._store.claim(schedule, day, fired_at, this_runner())
        fired = Fired(schedule=schedule.name, day=day, fired_at=fired_at, caught_up=caught_up)
        if run is None:
            taken = self._store.run(schedule.name, day)
            owner = taken.claimed_by if taken else "another runner"
            return fired.model_copy(update={"note": f"already claimed by {owner}"})
        return fired.model_copy(update={"run": self._start(schedule, run)})

    def has_run(self, schedule: Schedule, fired_at: datetime) -> bool:
        """Whether the local day at `fired_at` has a run of the schedule (in any status)."""
        return self._store.run(schedule.name, _local_day(schedule, fired_at)) is not None

    def run_now(self, name: str, day: date) -> Fired:
        """`schedule run-now`: the run of `day` now, claimed like a fire, run to its end in this call
        (see `open_now` for the claim and its refusal)."""
        fired_at = self._now()
        run = self._ran(self.open_now(name, day))
        return Fired(schedule=run.schedule, day=day, fired_at=fired_at, run=run)

    def start_on(self, executor: JobExecutor, job_id: str) -> None:
        """Run a run's job on a server's executor, so a page or a REST call answers at once (its
        progress and cancel through the jobs routes)."""
        executor.submit(KIND, job_id, lambda: self.execute(job_id))

    def _ran(self, run: ScheduleRun) -> ScheduleRun:
        """The opened run run to its end in this call; one with nothing to run (skipped) as it is."""
        job_id = pending_job(run)
        return self.execute(job_id) if job_id is not None else run

    def open_now(self, name: str, day: date) -> ScheduleRun:
        """The run of `day` claimed now and its job opened, not run: the caller runs `execute(job_id)`
        (in this call, or on the server's job executor, so a page answers at once). A day without
        bars ends here as skipped, with no job. A run of that day left by a dead runner is taken over;
        one that ended (or runs) is 409 SCHEDULE_RUN_EXISTS."""
        schedule = self._schedule(name)
        fired_at = self._now()
        existing = self._store.run(schedule.name, day)
        if existing is None:
            run = self._store.claim(schedule, day, fired_at, this_runner())
            if run is not None:
                return self._open(schedule, run)
            existing = self._store.run(schedule.name, day)
        if existing is not None and self._orphaned(existing) and self._take(existing):
            return existing if existing.job_id is not None else self._open(schedule, existing)
        status = existing.status.value if existing else "claimed"
        raise RunExists(name, day.isoformat(), status)

    def _start(self, schedule: Schedule, run: ScheduleRun) -> ScheduleRun:
        return self._ran(self._open(schedule, run))

    def _open(self, schedule: Schedule, run: ScheduleRun) -> ScheduleRun:
        """The run's job opened (keyed by schedule and day), or, when nothing could bring the day's
        bars and the store has none, the run ended as skipped."""
        if self._ports.sync is None:  # nothing could bring the day's bars: decide before any job
            markets = by_market(self._ports, self._ports.symbols(schedule.watchlist))
            if not open_markets(self._ports, markets, run.day):
                return self._end(run, RunStatus.SKIPPED, no_bars_reason(run.day))
        config = {"schedule_id": schedule.id, "schedule": schedule.name, "day": run.day.isoformat()}
        job, _ = self._tasks.open_with_tasks(KIND, config, step_keys(schedule, self._ports.sync is not None))
        self._store.update(run.id, status=RunStatus.RUNNING, job_id=job.id)
        opened = self._store.run(run.schedule, run.day)
        assert opened is not None
        return opened

    def _continue(self, schedule: Schedule, run: ScheduleRun) -> ScheduleRun:
        if run.job_id is None:
            return self._start(schedule, run)
        return self.execute(run.job_id)

    # -- the job ----------------------------------------------------------------------------------
    def execute(self, job_id: str) -> ScheduleRun:
        """Run (or resume) the run's job to its end and record how it ended: what a fire, a restarted
        scheduler and `stockdesk jobs resume` all call."""
        run = self._store.run_by_job(job_id)
        if run is None:
            raise NotFoundException(f"no scheduled run of job {job_id}", code="JOB_NOT_FOUND")
        schedule = self._schedule(run.schedule)
        self._store.take_over(run.id, run.claimed_by, this_runner())  # this process runs it now
        self._store.update(run.id, status=RunStatus.RUNNING)
        work = RunSteps(self._ports, self._store, self._tasks, job_id, schedule, run.day)
        try:
            run_tasks(self._tasks, job_id, work, batch_size=1, max_attempts=2, backoff=Backoff(1.0, 10.0))
        except JobCancelled as exc:
            return self._end(run, RunStatus.FAILED, exc.message)
        return self._record(run, job_id)

    def _record(self, run: ScheduleRun, job_id: str) -> ScheduleRun:
        results = {t.key: t.result or {} for t in self._tasks.tasks(job_id)}
        notes = [str(results[k]["note"]) for k in (SYNC, CALENDAR, PAPER) if results.get(k, {}).get("note")]
        deliveries = [Delivery.model_validate(d) for d in results.get(DELIVER, {}).get("deliveries", [])]
        report = results.get(BATCH, {}).get("report_dir")
        if report:
            self._store.update(run.id, report_dir=str(report))
        job = self._tasks.get_job(job_id)
        calendar = results.get(CALENDAR, {})
        if calendar.get("trading") is False:
            status, reason = RunStatus.SKIPPED, str(calendar.get("reason"))
        elif job is not None and job.status is JobStatus.DONE:
            status, reason = RunStatus.DONE, None
        else:
            status = RunStatus.FAILED
            reason = (job.error if job else None) or "the run's job did not finish"
        return self._end(run, status, reason, rows=digest_rows(results), deliveries=deliveries, notes=notes)

    def _end(
        self,
        run: ScheduleRun,
        status: RunStatus,
        reason: str | None,
        *,
        rows: list | None = None,  # type: ignore[type-arg]
        deliveries: list[Delivery] | None = None,
        notes: list[str] | None = None,
    ) -> ScheduleRun:
        self._store.finish(
            run.id, status, reason=reason, rows=rows or [], deliveries=deliveries or [], notes=notes or [],
            finished_at=datetime.now(UTC),
        )  # fmt: skip
        ended = self._store.run(run.schedule, run.day)
        assert ended is not None
        logger.info("schedule %s %s: %s %s", run.schedule, run.day, status.value, reason or "")
        return ended

    # -- runs left by a process that died ---------------------------------------------------------
    def _orphaned(self, run: ScheduleRun) -> bool:
        """Claimed or running, its claimer gone (on this host: its pid; another host's claimer is left to
        `stockdesk jobs resume`) and its job, if any, not run by a live process."""
        if run.status not in OPEN_STATUSES:
            return False
        if run.job_id is not None:
            job = self._tasks.recover(run.job_id)
            if job is not None and job.live:
                return False
        return not runner_alive(run.claimed_by, datetime.now(UTC))

    def _take(self, run: ScheduleRun) -> bool:
        return self._store.take_over(run.id, run.claimed_by, this_runner())

    def recover(self) -> list[Fired]:
        """Resume every run whose runner died, each by one process (what a scheduler does as it starts
        and on each round)."""
        resumed = []
        for run in self._store.open_runs():
            if not self._orphaned(run) or not self._take(run):
                continue
            schedule = self._store.get(run.schedule)
            if schedule is None:
                continue
            logger.info("schedule %s %s: resuming a run whose runner died", run.schedule, run.day)
            ended = self._continue(schedule, run)
            resumed.append(
                Fired(schedule=run.schedule, day=run.day, fired_at=run.fired_at, run=ended, note="resumed")
            )
        return resumed

    def runs(self, name: str, limit: int = 20) -> list[ScheduleRun]:
        self._schedule(name)
        return self._store.runs(name, limit)

    def run_of_job(self, job_id: str) -> ScheduleRun:
        """The run a `scheduled_run` job ran (404 JOB_NOT_FOUND): where the jobs page's link leads."""
        run = self._store.run_by_job(job_id)
        if run is None:
            raise NotFoundException(f"no scheduled run of job {job_id}", code="JOB_NOT_FOUND")
        return run


def pending_job(run: ScheduleRun) -> str | None:
    """The job still to run of an opened run; None when the run has none (skipped at once) or ended."""
    return run.job_id if run.job_id is not None and run.status in OPEN_STATUSES else None


def _local_day(schedule: Schedule, moment: datetime) -> date:
    """The day a fire at `moment` runs: the local date in the schedule's zone."""
    return moment.astimezone(ZoneInfo(schedule.tz)).date()
