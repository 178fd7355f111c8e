"""`strategy sweep`: one durable job per spec, one task per parameter set, then one summary task.

The job is keyed by the spec (its window's end resolved to a date, so new data makes a new job),
so running the same grid again opens the same job and scores only the sets without a finished
task. The tasks run on any engine (inline, threads, Ray) through a worker built by the composition
root (`score_batch` in it). When every set has finished, one more task is added and run, once: the
summary, i.e. the lab's selection (best validation Sharpe within the drawdown limit), the
champion's holdout, the deflated Sharpe and PBO over the trials (`run_summary.summarise`). Its
result is stored like any task's, so the holdout is never scored again for that job.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from stockdesk.shared.tasks import (
    BatchWorker,
    ITaskEngine,
    ITaskStore,
    JobRecord,
    JobStatus,
    ProgressCallback,
    RunBudget,
    TaskCounts,
    config_hash,
    run_tasks,
)
from stockdesk.strategy_lab.application.backtest_service import BacktestService
from stockdesk.strategy_lab.application.market_panel import MarketPanel
from stockdesk.strategy_lab.application.run_summary import summarise
from stockdesk.strategy_lab.application.sweep_results import records_of, sweep_results
from stockdesk.strategy_lab.application.sweep_trials import SweepTrials, UsageScope
from stockdesk.strategy_lab.application.trials import pick_champion
from stockdesk.strategy_lab.domain.dtos import BacktestWindow
from stockdesk.strategy_lab.domain.errors import StrategyRunNotFoundError
from stockdesk.strategy_lab.domain.sweep import SUMMARY_KEY, SweepPlan, SweepResults, SweepSpec
from stockdesk.strategy_lab.domain.sweep_grid import plan_sweep

JOB_KIND = "strategy_sweep"
MAX_BATCH = 20  # sets per batch: one sandbox session each, and progress at least this often
BATCHES_PER_WORKER = 4


@dataclass(frozen=True)
class SweepJob:
    job: JobRecord
    spec: SweepSpec  # as stored: the window's end resolved
    plan: SweepPlan
    added: int  # tasks new in this call (0: a rerun of a known sweep)


def batch_size(sets: int, workers: int, llm: bool) -> int:
    """Small enough to spread the sets over the workers, large enough to reuse a sandbox session;
    one per LLM proposal (progress and the budget move per call)."""
    if llm:
        return 1
    return max(1, min(MAX_BATCH, math.ceil(sets / (workers * BATCHES_PER_WORKER))))


class SweepService:
    def __init__(self, tasks: ITaskStore, backtests: BacktestService):
        self._tasks = tasks
        self._backtests = backtests
        self._full: tuple[str, MarketPanel] | None = None
        self._lock = threading.Lock()  # a worker's threads share this service

    def open(self, spec: SweepSpec) -> SweepJob:
        """Check the grid, the universe and the window, then open (or reopen) the sweep's job."""
        plan = plan_sweep(spec)
        resolved = self._resolved(spec)
        stored = resolved.model_dump(mode="json")
        job, added = self._tasks.open_with_tasks(JOB_KIND, stored, [s.key for s in plan.sets])
        return SweepJob(job, resolved, plan, added)

    def run(
        self,
        sweep: SweepJob,
        work: BatchWorker,
        engine: ITaskEngine,
        *,
        max_attempts: int = 2,
        budget: RunBudget | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> TaskCounts:
        """Score the sets not done yet, then (once every set has finished) the summary task.

        `work` answers both kinds of key (`score_batch`); the summary task runs on the same engine.
        """
        job_id = sweep.job.id
        left = self._tasks.counts(job_id)
        size = batch_size(max(1, left.total - left.done), engine.workers, sweep.spec.llm_runs is not None)
        counts = run_tasks(
            self._tasks,
            job_id,
            work,
            batch_size=size,
            max_attempts=max_attempts,
            engine=engine,
            budget=budget,
            on_progress=on_progress,
        )
        job = self._tasks.get_job(job_id)
        if job is None or job.status is JobStatus.STOPPED or counts.pending or counts.running:
            return counts
        self._tasks.add_tasks(job_id, [SUMMARY_KEY])
        return run_tasks(self._tasks, job_id, work, batch_size=1, max_attempts=max_attempts, engine=engine)

    def counts(self, job_id: str) -> TaskCounts:
        return self._tasks.counts(job_id)

    def results(self, job_id: str) -> SweepResults:
        job = self._tasks.get_job(job_id)
        if job is None:
            raise StrategyRunNotFoundError(f"no strategy sweep with job id {job_id}")
        spec = SweepSpec.model_validate(job.config)
        return sweep_results(job, spec, plan_sweep(spec), self._tasks.tasks(job_id))

    def _resolved(self, spec: SweepSpec) -> SweepSpec:
        """The spec with its window's end fixed to a date (default: the newest stored bar)."""
        full = self._full_panel(spec)
        if spec.window.end is not None:
            return spec
        window = BacktestWindow(universe=spec.window.universe, start=spec.window.start, end=full.end)
        return spec.model_copy(update={"window": window})

    def _full_panel(self, spec: SweepSpec) -> MarketPanel:
        """The whole window with its plan (holdout included): read to check the spec and, once every
        set is scored, for the champion's holdout; kept for this sweep only."""
        key = config_hash({"window": spec.window.model_dump(mode="json"), "split": spec.split.model_dump()})
        with self._lock:
            if self._full is None or self._full[0] != key:
                self._full = (key, self._backtests.panel(spec.window, spec.split))
            return self._full[1]

    def summary(self, job_id: str, spec: SweepSpec) -> dict[str, Any]:
        """The summary task's result: selection on validation, the champion's holdout (the only
        holdout this sweep reads), DSR and PBO over the trials stored so far."""
        records, numbers = records_of(job_id, self._tasks.tasks(job_id))
        full = self._full_panel(spec)
        with self._backtests.session(spec.execution) as session:
            summary = summarise(records, spec.max_drawdown_limit, session, full)
        champion = pick_champion(records, spec.max_drawdown_limit)
        return {
            "summary": summary,
            "champion": numbers[champion.number] if champion is not None else None,
            "trials": len(records),
        }


def score_batch(
    trials: SweepTrials,
    sweeps: SweepService,
    spec: SweepSpec,
    job_id: str,
    keys: list[str],
    usage: UsageScope | None = None,
) -> dict[str, Mapping[str, Any] | BaseException]:
    """What a worker answers for a batch: the summary task, or parameter sets (see SweepTrials.score)."""
    answer: dict[str, Mapping[str, Any] | BaseException] = {}
    sets = [key for key in keys if key != SUMMARY_KEY]
    if sets:
        answer.update(trials.score(spec, sets, job_id, usage))
    if SUMMARY_KEY in keys:
        try:
            answer[SUMMARY_KEY] = sweeps.summary(job_id, spec)
        except Exception as exc:
            answer[SUMMARY_KEY] = exc
    return answer
