"""`strategy sweep` on a real store with the real sandbox: ranking on validation, the holdout read
once and only for the winner, a rerun that computes nothing, resumption after an interrupted
driver, LLM proposals by seed with a budget stop, and the same results inline and on threads."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console

from stockdesk.entrypoints.batch.sweep_work import SweepWork
from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.llm_platform.domain.dtos import CompletionRequest
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.shared.tasks import (
    BatchWorker,
    InlineEngine,
    ITaskEngine,
    JobStatus,
    RunBudget,
    TaskStatus,
    ThreadEngine,
)
from stockdesk.strategy_lab.application.sweep_service import SweepService, score_batch
from stockdesk.strategy_lab.container import StrategyLabContainer
from stockdesk.strategy_lab.domain.params import StrategyParams
from stockdesk.strategy_lab.domain.ports import IStrategySandbox, IStrategySession
from stockdesk.strategy_lab.domain.sweep import SUMMARY_KEY, SweepResults, SweepSpec
from stockdesk.strategy_lab.presentation.cli.sweep import run_sweep
from tests.conftest import scripted_service
from tests.strategy_lab.support import answer, populate

# 3 periods x 2 MAs = 6 combinations; 30 > 20 breaks momentum_period <= ma_periods: 5 sets
GRID = {
    "momentum_period": [10, 20, 30],
    "ma_periods": [20, 60],
    "catalyst_type": "revenue",
    "catalyst_lookback": 3,
    "n_stocks": 5,
    "stop_loss": 0.1,
    "resample": "W",
    "resample_offset": 0,
}
QUIET = Console(quiet=True)


class RecordingSandbox(IStrategySandbox):
    """The real sandbox, noting which parameters ran on prices up to which day."""

    def __init__(self, inner: IStrategySandbox):
        self.inner = inner
        self.calls: list[tuple[StrategyParams, date]] = []

    @contextmanager
    def session(self) -> Iterator[IStrategySession]:
        with self.inner.session() as strategies:
            yield _RecordingSession(strategies, self.calls)


class _RecordingSession(IStrategySession):
    def __init__(self, inner: IStrategySession, calls: list[tuple[StrategyParams, date]]):
        self.inner = inner
        self.calls = calls

    def weights(
        self, params: StrategyParams, closes: pd.DataFrame, fundamentals: pd.DataFrame
    ) -> pd.DataFrame:
        self.calls.append((params, closes.index[-1].date()))
        return self.inner.weights(params, closes, fundamentals)


def lab_of(settings: Settings) -> tuple[StrategyLabContainer, RecordingSandbox]:
    """A populated store's strategy lab whose sandbox records every run."""
    container = AppContainer(settings)
    populate(container.database)
    lab = container.strategy_lab
    recording = RecordingSandbox(lab.sandbox)
    lab.__dict__["sandbox"] = recording
    return lab, recording


def local_work(lab: StrategyLabContainer):  # type: ignore[no-untyped-def]
    """This process's worker over `lab` (inline and thread engines need nothing picklable)."""

    def make(spec: SweepSpec, job_id: str) -> BatchWorker:
        return lambda keys: score_batch(lab.sweep_trials, lab.sweeps, spec, job_id, keys)

    return make


def sweep(lab: StrategyLabContainer, spec: SweepSpec, engine: ITaskEngine | None = None) -> SweepResults:
    return run_sweep(lab.sweeps, spec, local_work(lab), engine or InlineEngine(), console=QUIET)


def figures(results: SweepResults) -> list[tuple]:
    """What must not depend on the engine: each row's rank, set and figures, and the summary."""
    rows = [r.model_dump(exclude={"tokens"}) for r in results.rows]
    summary = results.summary.model_dump(mode="json") if results.summary else None
    return [rows, summary, results.champion_key]


@pytest.fixture
def lab(settings: Settings) -> tuple[StrategyLabContainer, RecordingSandbox]:
    return lab_of(settings)


def test_sets_are_ranked_by_validation_and_only_the_winner_meets_the_holdout(
    lab: tuple[StrategyLabContainer, RecordingSandbox],
) -> None:
    container, sandbox = lab
    results = sweep(container, SweepSpec(grid=GRID))
    assert results.status == "done" and results.counts.done == 5 and results.counts.total == 5
    assert [s.values["momentum_period"] for s in results.skipped] == [30]
    ranked = [r for r in results.rows if r.rank is not None]
    assert [r.rank for r in ranked] == [1, 2, 3, 4, 5]
    sharpes = [r.validation_sharpe for r in ranked]
    assert sharpes == sorted(sharpes, reverse=True)  # type: ignore[type-var]
    # the ranking is on validation, not in-sample: here the two orders differ
    by_in_sample = sorted(ranked, key=lambda r: (-(r.in_sample_sharpe or 0.0), r.number))
    assert [r.number for r in by_in_sample] != [r.number for r in ranked]
    winner = ranked[0]
    assert winner.champion and results.champion_key == winner.key and winner.within_limit
    summary = results.summary
    assert summary is not None and summary.splits is not None
    assert summary.splits.validation.sharpe == pytest.approx(winner.validation_sharpe)
    assert summary.overfitting.trials == 5 and summary.overfitting.deflated_sharpe is not None
    assert summary.overfitting.pbo is not None
    selection_end = summary.plan.selection.end
    beyond = [(p, day) for p, day in sandbox.calls if day > selection_end]
    assert len(beyond) == 1  # the holdout is read once ...
    assert beyond[0][0].model_dump(mode="json") == winner.params  # ... for the winner only
    assert beyond[0][1] == summary.plan.holdout.end
    # 5 sets + the winner re-scored on the selection span + its holdout run
    assert len(sandbox.calls) == 7
    assert container.sweep_trials.panel_loads == 1  # one panel for all batches of the process
    calls = len(sandbox.calls)
    again = sweep(container, SweepSpec(grid=GRID))
    assert len(sandbox.calls) == calls  # a rerun computes nothing: no set, no summary, no holdout
    assert figures(again) == figures(results) and again.job_id == results.job_id


def test_an_interrupted_driver_resumes_with_only_the_missing_sets(
    lab: tuple[StrategyLabContainer, RecordingSandbox],
) -> None:
    container, sandbox = lab
    service: SweepService = container.sweeps
    opened = service.open(SweepSpec(grid=GRID))
    inner = local_work(container)(opened.spec, opened.job.id)
    batches = []

    def dies_on_the_second_batch(keys: list[str]):  # type: ignore[no-untyped-def]
        batches.append(keys)
        if len(batches) == 2:
            raise KeyboardInterrupt  # Ctrl-C: the batch in hand goes back to pending
        return inner(keys)

    with pytest.raises(KeyboardInterrupt):
        service.run(opened, dies_on_the_second_batch, InlineEngine())
    first = len(batches[0])  # 5 sets, 1 worker: batches of ceil(5 / 4) = 2
    assert first == 2
    job = service.results(opened.job.id)
    assert job.status == JobStatus.INTERRUPTED and job.counts.done == first and job.summary is None
    assert len(sandbox.calls) == first
    resumed = sweep(container, SweepSpec(grid=GRID))
    assert resumed.job_id == opened.job.id and resumed.counts.done == 5
    assert len(sandbox.calls) == 5 + 2  # the other 3 sets, then the winner's selection and holdout
    assert resumed.summary is not None and resumed.summary.overfitting.trials == 5


def test_threads_give_the_same_results_as_inline(settings: Settings, tmp_path: Path) -> None:
    inline_lab, _ = lab_of(settings)
    threaded_lab, _ = lab_of(Settings(home=tmp_path / "second"))
    inline = sweep(inline_lab, SweepSpec(grid=GRID))
    threaded = sweep(threaded_lab, SweepSpec(grid=GRID), ThreadEngine(2))
    assert figures(threaded) == figures(inline)


PROPOSALS = {  # seed -> the strategist's answer
    1: answer(),
    2: answer(n_stocks=10),
    3: "no sections at all",  # generation_failed: one call, not retried
    4: answer(),  # the same set as seed 1: one trial
}


def _by_seed(request: CompletionRequest) -> str:
    return PROPOSALS[request.seed or 0]


def seeded_llm(settings: Settings, database: Database) -> LLMService:
    """Each worker's LLM: answers chosen by the request's seed (the same in any worker)."""
    return scripted_service(ScriptedProvider([_by_seed]), database=database)


def test_llm_proposals_are_one_call_per_seed_and_a_budget_stops_new_ones(settings: Settings) -> None:
    container = AppContainer(settings)
    populate(container.database)
    service = container.strategy_lab.sweeps
    spec = SweepSpec(llm_runs=4)

    def make(spec: SweepSpec, job_id: str) -> BatchWorker:
        return SweepWork(settings, spec, job_id, llm=seeded_llm, distributed=False)

    # each call costs 100 + 50 = 150 tokens (the scripted provider's default): the budget of 300 is
    # reached after two proposals, so the other two never start
    stopped = run_sweep(service, spec, make, InlineEngine(), console=QUIET, budget=RunBudget(max_tokens=300))
    assert stopped.status == JobStatus.STOPPED and "token budget reached" in (stopped.error or "")
    assert stopped.counts.done == 2 and stopped.counts.pending == 2 and stopped.summary is None
    assert sum(r.tokens for r in stopped.rows) == 300
    done = run_sweep(service, spec, make, ThreadEngine(2), console=QUIET)
    assert done.job_id == stopped.job_id and done.status == JobStatus.DONE
    by_number = {r.number: r for r in done.rows}
    assert by_number[1].params is not None and by_number[1].params["n_stocks"] == 5
    assert by_number[2].params is not None and by_number[2].params["n_stocks"] == 10
    assert by_number[3].status == "generation_failed" and by_number[3].rank is None
    assert by_number[4].duplicate_of == 1 and by_number[4].rank is None
    assert all(by_number[n].tokens == 150 for n in PROPOSALS)  # one call each, no retry
    # trials: seeds 1 and 2 (3 proposed nothing, 4 repeated 1)
    assert done.summary is not None and done.summary.overfitting.trials == 2
    assert {r.rank for r in done.rows if r.rank} == {1, 2}
    assert by_number[1].reasoning and "momentum" in by_number[1].reasoning.lower()
    tasks = {t.key: t for t in SqlTaskStore(container.database).tasks(done.job_id)}
    assert tasks[SUMMARY_KEY].status is TaskStatus.DONE
