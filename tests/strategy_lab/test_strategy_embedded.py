"""One loop iteration on the real embedded model: scored, or a generation failure with its errors."""

from __future__ import annotations

from datetime import date

import pytest

from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.infrastructure.persistence.repositories import SqlLLMStore
from stockdesk.shared.config import Settings
from stockdesk.strategy_lab.domain.dtos import BacktestWindow, IterationStatus, RunConfig, RunStatus
from tests.strategy_lab.support import populate

pytestmark = pytest.mark.slow


def test_one_iteration_on_the_local_model_is_scored_or_recorded_with_errors(settings: Settings) -> None:
    container = AppContainer(settings)
    try:
        populate(container.database)
        service = container.strategy_lab.service
        run = service.create_run(RunConfig(iterations=1, window=BacktestWindow(start=date(2023, 7, 1))))
        finished = service.execute(run.id)
        audit = SqlLLMStore(container.database).list_for_run(f"{run.id}:1")
    finally:
        container.close()
    assert finished.status == RunStatus.COMPLETED
    [iteration] = finished.iterations
    assert 1 <= iteration.attempts <= 3 and iteration.tokens > 0
    assert len([r for r in audit if r.caller == "strategy_lab.strategist"]) == iteration.llm_calls
    if iteration.status == IterationStatus.GENERATION_FAILED:
        assert iteration.errors and iteration.attempts == 3 and iteration.params is None
    else:
        assert iteration.params is not None and iteration.code and "def generate_weights" in iteration.code
        assert iteration.metrics is not None and len(iteration.reasoning or "") >= 50
