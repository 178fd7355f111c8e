"""N iterations of prompt -> LLM -> generate (with retries) -> backtest -> classify -> champion -> persist.

Every iteration is stored as soon as it ends, so a run interrupted anywhere can be resumed from
the next iteration with the same market panel and history.
"""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime

from stockdesk.shared.errors import ServiceUnavailableError, StockdeskError, one_line
from stockdesk.shared.tasks.cancel import JobCancelled, check_cancelled
from stockdesk.strategy_lab.application.backtest_service import (
    BacktestService,
    BacktestSession,
    finite_metrics,
)
from stockdesk.strategy_lab.application.code_generator import TemplateCodeGenerator
from stockdesk.strategy_lab.application.generation_loop import generate_with_feedback
from stockdesk.strategy_lab.application.market_panel import MarketPanel
from stockdesk.strategy_lab.application.novelty import duplicate_check
from stockdesk.strategy_lab.application.prompt_builder import PromptBuilder, RunHistory
from stockdesk.strategy_lab.application.run_summary import summarise
from stockdesk.strategy_lab.application.trials import (
    SCORED,
    TrialScore,
    best_in_sample,
    pick_champion,
    score_trial,
)
from stockdesk.strategy_lab.domain.dtos import (
    IterationRecord,
    IterationStatus,
    RunConfig,
    RunStatus,
    StrategyRunDTO,
)
from stockdesk.strategy_lab.domain.errors import (
    GenerationFailedError,
    RunNotResumableError,
    StrategyRunNotFoundError,
    ValidationErrorDetail,
)
from stockdesk.strategy_lab.domain.params import FAMILIES
from stockdesk.strategy_lab.domain.ports import IStrategist, IStrategyRunRepository

STALE_AFTER = 2  # iterations without a new champion before the prompt asks to explore again


class LoopObserver:
    """Hears a run's progress (the CLI draws it: presentation/cli/progress.py); this one hears nothing."""

    def iteration_started(self, number: int, total: int) -> None:
        """Iteration `number` of `total` starts: the strategist is asked."""

    def attempt(self, number: int, attempt: int) -> None:
        """Attempt `attempt` of iteration `number` (after the first: a retry with the error feedback)."""

    def iteration_finished(self, record: IterationRecord, champion: IterationRecord | None) -> None:
        """The iteration is stored; `champion`: the run's champion so far (on validation)."""


class AutonomousLoop:
    def __init__(
        self,
        strategist: IStrategist,
        generator: TemplateCodeGenerator,
        backtests: BacktestService,
        runs: IStrategyRunRepository,
        prompts: PromptBuilder | None = None,
    ):
        self._strategist = strategist
        self._generator = generator
        self._backtests = backtests
        self._runs = runs
        self._prompts = prompts or PromptBuilder()

    def create(self, config: RunConfig) -> StrategyRunDTO:
        """Check the window and universe first (bad input fails before anything is stored)."""
        self._backtests.panel(config.window, config.split)
        return self._runs.create(uuid.uuid4().hex, config)

    def execute(self, run_id: str, observer: LoopObserver | None = None) -> StrategyRunDTO:
        """Run (or resume) the iterations still missing; the run's status says how it ended."""
        observer = observer or LoopObserver()
        run = self._runs.get(run_id)
        if run is None:
            raise StrategyRunNotFoundError(f"no strategy run with id {run_id}")
        if run.status == RunStatus.COMPLETED:
            raise RunNotResumableError(f"strategy run {run_id} is already completed")
        self._runs.set_status(run_id, RunStatus.RUNNING)
        records = list(run.iterations)
        try:
            full = self._backtests.panel(run.config.window, run.config.split)
            assert full.plan is not None
            panel = full.until(full.plan.selection.end)  # the loop never holds a holdout price
            # one sandbox worker for the whole run
            with self._backtests.session(run.config.execution) as backtests:
                for number in range(len(records) + 1, run.config.iterations + 1):
                    check_cancelled()
                    observer.iteration_started(number, run.config.iterations)
                    record = self._iteration(run, number, records, panel, backtests, observer)
                    records.append(record)
                    champion = pick_champion(records, run.config.max_drawdown_limit)
                    self._runs.save_iteration(record, champion.number if champion else None)
                    observer.iteration_finished(record, champion)
                check_cancelled()
                summary = summarise(records, run.config.max_drawdown_limit, backtests, full)
                self._runs.save_summary(run_id, summary)
        except KeyboardInterrupt:
            self._runs.set_status(run_id, RunStatus.INTERRUPTED, "interrupted by the user")
            raise
        except JobCancelled as exc:  # between iterations: resumable like an interruption
            self._runs.set_status(run_id, RunStatus.INTERRUPTED, exc.message)
            raise
        except ServiceUnavailableError as exc:
            self._runs.set_status(run_id, RunStatus.FAILED, one_line(exc))
            return self._require(run_id)
        self._runs.set_status(run_id, RunStatus.COMPLETED)
        return self._require(run_id)

    def _require(self, run_id: str) -> StrategyRunDTO:
        run = self._runs.get(run_id)
        assert run is not None
        return run

    def _iteration(
        self,
        run: StrategyRunDTO,
        number: int,
        records: list[IterationRecord],
        panel: MarketPanel,
        backtests: BacktestSession,
        observer: LoopObserver,
    ) -> IterationRecord:
        started, clock = datetime.now(UTC), time.perf_counter()
        base = {"run_id": run.id, "number": number, "started_at": started}
        # the loop's reference is the best IN-SAMPLE trial: naming the validation champion would leak
        champion = best_in_sample(records, run.config.max_drawdown_limit)
        history = RunHistory(
            iteration=number,
            total=run.config.iterations,
            records=records,
            champion=champion,
            best=best_in_sample(records, 1.0),
            max_drawdown_limit=run.config.max_drawdown_limit,
            explore=champion is None or number - 1 - champion.number >= STALE_AFTER or narrow_search(records),
            data_notes=panel.data_notes,
        )
        last_errors = _errors_of(records[-1]) if records else []
        context = self._prompts.build(history, last_errors)
        try:
            outcome = generate_with_feedback(
                self._strategist,
                self._generator,
                context,
                max_attempts=run.config.max_attempts,
                reject=duplicate_check(r.params for r in records if r.params is not None),
                run_id=f"{run.id}:{number}",
                on_attempt=lambda attempt: observer.attempt(number, attempt),
            )
        except GenerationFailedError as exc:
            return IterationRecord(
                **base,
                status=IterationStatus.GENERATION_FAILED,
                errors=[e.as_dict() for e in exc.errors],
                attempts=exc.attempts,
                llm_calls=exc.attempts,
                tokens=exc.tokens,
                seconds=round(time.perf_counter() - clock, 3),
            )
        except ServiceUnavailableError:
            raise
        except StockdeskError as exc:  # the provider answered with an error: record it, go on
            return IterationRecord(
                **base,
                status=IterationStatus.GENERATION_FAILED,
                errors=[_error("$", "llm_error", one_line(exc))],
                seconds=round(time.perf_counter() - clock, 3),
            )
        result = outcome.result
        assert result.params is not None and result.code is not None
        scored = {
            **base,
            "params": result.params,
            "reasoning": result.reasoning,
            "code": result.code,
            "attempts": outcome.attempts,
            "llm_calls": outcome.attempts,
            "tokens": outcome.tokens,
            "errors": [e.as_dict() for e in outcome.errors],
        }
        try:
            # the sandbox renders its own code from the validated params: result.code is only the record
            assert panel.plan is not None
            trial = score_trial(backtests, result.params, panel, panel.plan)
        except StockdeskError as exc:
            return IterationRecord(
                **{**scored, "errors": [*scored["errors"], _error("$", "backtest_error", one_line(exc))]},
                status=IterationStatus.BACKTEST_FAILED,
                seconds=round(time.perf_counter() - clock, 3),
            )
        return IterationRecord(
            **scored,
            status=classify(trial),
            metrics=trial.in_sample,
            benchmark=trial.in_sample_benchmark,
            validation=trial.validation.metrics,
            validation_benchmark=trial.validation.benchmark,
            folds=trial.folds,
            returns=trial.returns,
            seconds=round(time.perf_counter() - clock, 3),
        )


def narrow_search(records: list[IterationRecord]) -> bool:
    """The last STALE_AFTER parameter sets were all of one family while another is still untried:
    time to explore (the search should cover the families, not polish the first one it met)."""
    tried = [r.params.strategy_type for r in records if r.params is not None]
    recent = tried[-STALE_AFTER:]
    return len(recent) == STALE_AFTER and len(set(recent)) == 1 and len(set(tried)) < len(FAMILIES)


def classify(trial: TrialScore) -> IterationStatus:
    """Judged on what the loop may see: the in-sample figures."""
    if not finite_metrics(trial.in_sample, trial.in_sample_benchmark) or trial.in_sample.trades == 0:
        return IterationStatus.INVALID_METRICS
    beat = trial.in_sample.sharpe > trial.in_sample_benchmark.sharpe
    return IterationStatus.BEAT_BENCHMARK if beat else IterationStatus.RAN


def _error(path: str, kind: str, message: str) -> dict:
    detail = ValidationErrorDetail(field_path=path, error_type=kind, given_value=None, message=message)
    return detail.as_dict()


def _errors_of(record: IterationRecord) -> list[ValidationErrorDetail]:
    if record.status in SCORED:
        return []
    return [
        ValidationErrorDetail(
            field_path=str(e.get("field_path")),
            error_type=str(e.get("error_type")),
            given_value=e.get("given_value"),
            allowed_values=list(e.get("allowed_values") or []),
            suggestion=str(e.get("suggestion") or e.get("message") or ""),
        )
        for e in record.errors
    ]
