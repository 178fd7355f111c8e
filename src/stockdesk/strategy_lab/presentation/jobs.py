"""Start, resume and stop a strategy run as a server job: the one way REST and the web UI both do it.

A run is checked (bounds, then universe and window by the loop) and stored before it is handed to
the executor; it iterates between cancellation checks, so a cancel leaves it `interrupted` and a
resume continues from its last stored iteration. Runs are kept in the strategy lab's own records,
not the task store: `run_record` and `recent_runs` show them to the job kinds (`shared.tasks.kinds`),
which resume them through the general jobs routes.
"""

from __future__ import annotations

from stockdesk.shared.access.bounds import RequestBounds
from stockdesk.shared.errors import ConflictException
from stockdesk.shared.tasks import JobStatus
from stockdesk.shared.tasks.executor import JobExecutor
from stockdesk.shared.tasks.kinds import StoredJob
from stockdesk.strategy_lab.application.service import StrategyLabService
from stockdesk.strategy_lab.domain.dtos import RunConfig, RunStatus, StrategyRunDTO
from stockdesk.strategy_lab.domain.errors import StrategyRunNotFoundError

KIND = "strategy-run"
# a run's status as a job's: one `running` that nothing here holds was cut off (a server stopped)
STATUSES = {
    RunStatus.RUNNING: JobStatus.RUNNING,
    RunStatus.COMPLETED: JobStatus.DONE,
    RunStatus.INTERRUPTED: JobStatus.INTERRUPTED,
    RunStatus.FAILED: JobStatus.FAILED,
}


def _submit(service: StrategyLabService, jobs: JobExecutor, run_id: str) -> None:
    jobs.submit(KIND, run_id, lambda: service.execute(run_id))


def launch_strategy_run(
    service: StrategyLabService, jobs: JobExecutor, bounds: RequestBounds, config: RunConfig
) -> StrategyRunDTO:
    """Check the bounds, create the run (bad universe or window fail here) and submit it."""
    bounds.check_universe(config.window.universe)
    bounds.check_window(config.window.start, config.window.end)
    bounds.check_iterations(config.iterations)
    run = service.create_run(config)
    _submit(service, jobs, run.id)
    return run


def resume_strategy_run(service: StrategyLabService, jobs: JobExecutor, run_id: str) -> StrategyRunDTO:
    """Continue an interrupted or failed run (404 unknown, 409 RUN_COMPLETED when it is done); the
    job kinds call it once they have checked the run is not held or done."""
    run = service.get(run_id)
    if run.status == RunStatus.COMPLETED:
        raise ConflictException(f"strategy run {run_id} is already completed", code="RUN_COMPLETED")
    _submit(service, jobs, run_id)
    return run


def _stored(run: StrategyRunDTO) -> StoredJob:
    return StoredJob(KIND, run.id, STATUSES[run.status], run.finished_at or run.created_at)


def run_record(service: StrategyLabService, run_id: str) -> StoredJob | None:
    """The run of that id as a job, None when there is none."""
    try:
        return _stored(service.get(run_id))
    except StrategyRunNotFoundError:
        return None


def recent_runs(service: StrategyLabService, limit: int) -> list[StoredJob]:
    """The newest runs as jobs."""
    return [_stored(run) for run in service.list(limit)]
