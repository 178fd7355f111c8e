"""Start, resume and stop a strategy run as a server job: the one way REST and the web UI both do it.

A run is checked (bounds, then universe and window by the loop) and stored before it is handed to
the executor; it iterates between cancellation checks, so a cancel leaves it `interrupted` and a
resume continues from its last stored iteration.
"""

from __future__ import annotations

from stockdesk.shared.access.bounds import RequestBounds
from stockdesk.shared.errors import ConflictException
from stockdesk.shared.tasks.executor import JobExecutor
from stockdesk.strategy_lab.application.service import StrategyLabService
from stockdesk.strategy_lab.domain.dtos import RunConfig, RunStatus, StrategyRunDTO

KIND = "strategy-run"


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
    """Continue an interrupted or failed run (404 unknown, 409 RUN_COMPLETED when it is done)."""
    run = service.get(run_id)
    if run.status == RunStatus.COMPLETED:
        raise ConflictException(f"strategy run {run_id} is already completed", code="RUN_COMPLETED")
    _submit(service, jobs, run_id)
    return run
