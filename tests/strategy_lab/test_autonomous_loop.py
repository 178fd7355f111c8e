"""The whole loop on a real store and SQLite, scripted provider: classify, champion, persist, resume."""

from __future__ import annotations

from datetime import date

import pytest

from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.domain.exceptions import LLMTransientError
from stockdesk.llm_platform.infrastructure.persistence.repositories import SqlLLMStore
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from stockdesk.strategy_lab.application.autonomous_loop import LoopObserver
from stockdesk.strategy_lab.application.trials import best_scored, pick_champion
from stockdesk.strategy_lab.domain.dtos import (
    BacktestWindow,
    IterationRecord,
    IterationStatus,
    RunConfig,
    RunStatus,
)
from stockdesk.strategy_lab.domain.errors import InvalidUniverseError, RunNotResumableError
from tests.conftest import scripted_service
from tests.strategy_lab.support import answer, populate

WINDOW = BacktestWindow(start=date(2023, 7, 1))


def lab(settings: Settings, script: list) -> tuple[AppContainer, ScriptedProvider]:
    container = AppContainer(settings)
    provider = ScriptedProvider(script)
    container.__dict__["llm_service"] = scripted_service(provider, database=container.database)
    populate(container.database)
    return container, provider


def test_iterations_are_classified_persisted_and_the_best_within_the_limit_is_champion(
    settings: Settings,
) -> None:
    container, provider = lab(
        settings,
        [
            answer(),  # 1: scored
            "I cannot decide.",
            "still no JSON",
            "{}",  # 2: three failed attempts
            answer(),  # 3: the same set as 1 -> fed back as already tried ...
            answer(n_stocks=10, momentum_period=10),  # ... then a new one
        ],
    )
    service = container.strategy_lab.service
    run = service.create_run(RunConfig(iterations=3, window=WINDOW, max_drawdown_limit=0.5))
    finished = service.execute(run.id)

    assert finished.status == RunStatus.COMPLETED
    first, second, third = finished.iterations
    assert first.status in (IterationStatus.RAN, IterationStatus.BEAT_BENCHMARK)
    assert first.metrics is not None and first.metrics.trades > 0
    assert first.code and "def generate_weights" in first.code
    assert second.status == IterationStatus.GENERATION_FAILED and second.params is None
    assert second.attempts == 3 and second.llm_calls == 3 and second.tokens == 450
    assert [e["field_path"] for e in second.errors][:2] == ["$", "$"]
    assert third.params is not None and third.params.n_stocks == 10 and third.attempts == 2
    assert third.errors[0]["error_type"] == "already_tried"
    # the champion is chosen on validation, never on the in-sample figures the loop saw
    expected = max((first, third), key=lambda r: (r.validation.sharpe if r.validation else -99, -r.number))
    assert finished.champion is not None and finished.champion.number == expected.number
    assert [i.is_champion for i in finished.iterations].count(True) == 1
    assert finished.llm_calls == provider.calls == 6 and finished.tokens == 6 * 150

    prompts = [r.messages[-1].content for r in provider.requests]
    assert (
        "Iteration 1 of 3. Goal: the highest Sharpe ratio with a max drawdown no deeper than -50%."
        in prompts[0]
    )
    assert "No in-sample result stayed within the drawdown limit yet." in prompts[0]
    assert "Already tried" not in prompts[0]
    assert "Best in-sample so far (iteration 1)" in prompts[1] and "Already tried" in prompts[1]
    assert "Previous errors to fix\n- $: " in prompts[4]  # iteration 3 learns from 2's failure
    audit = SqlLLMStore(container.database)
    assert len(audit.list_for_run(f"{run.id}:2")) == 3

    again = container.strategy_lab.service.get(run.id)  # read back from the database
    assert again.model_dump(exclude={"created_at"}) == finished.model_dump(exclude={"created_at"})


def test_the_champion_must_stay_within_the_drawdown_limit(settings: Settings) -> None:
    container, provider = lab(settings, [answer(), answer(n_stocks=10)])
    service = container.strategy_lab.service
    config = RunConfig(iterations=2, window=WINDOW, max_drawdown_limit=0.01)
    run = service.execute(service.create_run(config).id)
    first, _ = run.iterations
    assert first.metrics is not None and first.metrics.max_drawdown < -0.01
    assert run.champion is None and pick_champion(run.iterations, 0.99) is not None
    second_prompt = provider.requests[1].messages[-1].content
    assert "no deeper than -1%" in second_prompt
    assert "No in-sample result stayed within the drawdown limit yet." in second_prompt
    best = best_scored(run.iterations)
    assert best is not None
    assert "Best in-sample Sharpe so far, but its drawdown is too deep" in second_prompt
    assert service.replay(run.id).params == best.params  # show draws the best when there is no champion


class StopAfterFirst(LoopObserver):
    def iteration_finished(self, record: IterationRecord, champion: IterationRecord | None) -> None:
        if record.number == 1:
            raise KeyboardInterrupt


def test_an_interrupted_run_resumes_at_the_next_iteration(settings: Settings) -> None:
    container, provider = lab(settings, [answer(), answer(n_stocks=10), answer(resample="M")])
    service = container.strategy_lab.service
    run = service.create_run(RunConfig(iterations=3, window=WINDOW))
    with pytest.raises(KeyboardInterrupt):
        service.execute(run.id, StopAfterFirst())
    stored = service.get(run.id)
    assert stored.status == RunStatus.INTERRUPTED and [i.number for i in stored.iterations] == [1]

    resumed = service.execute(run.id)
    assert resumed.status == RunStatus.COMPLETED and [i.number for i in resumed.iterations] == [1, 2, 3]
    assert provider.calls == 3  # iteration 1 was not asked again
    assert "Already tried" in provider.requests[1].messages[-1].content
    with pytest.raises(RunNotResumableError):
        service.execute(run.id)


def test_an_unreachable_model_fails_the_run_with_its_reason(settings: Settings) -> None:
    container, _ = lab(settings, [LLMTransientError("connection refused")])
    service = container.strategy_lab.service
    run = service.execute(service.create_run(RunConfig(iterations=2, window=WINDOW)).id)
    assert run.status == RunStatus.FAILED and "connection refused" in (run.error or "")
    assert run.iterations == []


def test_a_bad_universe_fails_before_anything_is_stored(settings: Settings) -> None:
    container, provider = lab(settings, [answer()])
    service = container.strategy_lab.service
    with pytest.raises(InvalidUniverseError, match=r"not in the store: 999999\.SH"):
        service.create_run(
            RunConfig(iterations=1, window=BacktestWindow(universe=["600001.SH", "999999.SH"]))
        )
    assert service.list() == [] and provider.calls == 0
