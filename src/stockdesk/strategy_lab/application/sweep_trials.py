"""What a sweep's task does in its worker: score parameter sets on the data cut at the validation end.

A worker process keeps the sweep's market panel (read once per process, not once per task) and
its plan of the parameter sets; each batch of tasks shares one sandbox session. A grid's set is
backtested as it is; an LLM proposal first asks the strategist once, with its own seed, through
the lab's generation path (one call: a bad answer is a `generation_failed` trial, not retried, as
the same seed would answer the same). Results have the shape of an `IterationRecord` (without run
id and start time), so the driver ranks them with the lab's own selection and statistics.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from stockdesk.llm_platform.application.usage_meter import UsageMeter
from stockdesk.shared.errors import StockdeskError
from stockdesk.shared.tasks.canonical import canonical_json
from stockdesk.strategy_lab.application.autonomous_loop import classify
from stockdesk.strategy_lab.application.backtest_service import BacktestService, BacktestSession
from stockdesk.strategy_lab.application.code_generator import TemplateCodeGenerator
from stockdesk.strategy_lab.application.generation_loop import generate_with_feedback
from stockdesk.strategy_lab.application.market_panel import MarketPanel
from stockdesk.strategy_lab.application.prompt_builder import PromptBuilder, RunHistory
from stockdesk.strategy_lab.application.trials import score_trial
from stockdesk.strategy_lab.domain.dtos import IterationStatus
from stockdesk.strategy_lab.domain.errors import GenerationFailedError
from stockdesk.strategy_lab.domain.params import StrategyParams
from stockdesk.strategy_lab.domain.ports import IStrategist
from stockdesk.strategy_lab.domain.sweep import SweepPlan, SweepSet, SweepSpec
from stockdesk.strategy_lab.domain.sweep_grid import plan_sweep

StrategistFactory = Callable[[int], IStrategist]  # seed -> a strategist sampling with it
KEPT_PANELS = 2  # sweeps a worker keeps panels for (a panel of thousands of symbols is large)


UsageScope = Callable[[], AbstractContextManager[UsageMeter]]
"""A metered LLM scope (LLMService.usage_scope): an LLM proposal's calls and tokens ride on its trial."""


class SweepTrials:
    def __init__(
        self,
        backtests: BacktestService,
        generator: TemplateCodeGenerator,
        strategist: StrategistFactory,
        prompts: PromptBuilder | None = None,
    ):
        self._backtests = backtests
        self._generator = generator
        self._strategist = strategist
        self._prompts = prompts or PromptBuilder()
        self._lock = threading.Lock()  # threads of one process share this object
        self._panels: OrderedDict[str, MarketPanel] = OrderedDict()
        self._plans: OrderedDict[str, SweepPlan] = OrderedDict()
        self.panel_loads = 0  # how many times this process read a panel (tests check the cache)

    def score(
        self, spec: SweepSpec, keys: list[str], run_id: str, usage: UsageScope | None = None
    ) -> dict[str, dict[str, Any] | Exception]:
        """Each key's trial as a result dict, or the exception that failed it (retried by the runner)."""
        sets = self.plan(spec).by_key()
        panel = self.panel(spec)
        answer: dict[str, dict[str, Any] | Exception] = {}
        with self._backtests.session(spec.execution) as session:
            for key in keys:
                chosen = sets.get(key)
                if chosen is None:
                    answer[key] = KeyError(f"{key} is not a task of this sweep")
                    continue
                try:
                    answer[key] = self._trial(chosen, panel, session, f"{run_id}:{chosen.number}", usage)
                except StockdeskError as exc:
                    answer[key] = exc
        return answer

    def plan(self, spec: SweepSpec) -> SweepPlan:
        return self._cached(self._plans, canonical_json(spec), lambda: plan_sweep(spec))

    def panel(self, spec: SweepSpec) -> MarketPanel:
        """The selection panel (prices up to the last validation day) with its plan, once per process."""
        key = canonical_json({"window": spec.window, "split": spec.split})
        return self._cached(self._panels, key, lambda: self._load(spec))

    def _load(self, spec: SweepSpec) -> MarketPanel:
        full = self._backtests.panel(spec.window, spec.split)
        assert full.plan is not None
        self.panel_loads += 1
        return full.until(full.plan.selection.end)  # a trial never holds a holdout price

    def _cached(self, store: OrderedDict[str, Any], key: str, make: Callable[[], Any]) -> Any:
        with self._lock:
            if key in store:
                store.move_to_end(key)
                return store[key]
            value = make()
            store[key] = value
            while len(store) > KEPT_PANELS:
                store.popitem(last=False)
            return value

    def _trial(
        self,
        chosen: SweepSet,
        panel: MarketPanel,
        session: BacktestSession,
        run_id: str,
        usage: UsageScope | None,
    ) -> dict[str, Any]:
        clock = time.perf_counter()
        base: dict[str, Any] = {"number": chosen.number}
        params = chosen.params
        if params is None:
            scope: AbstractContextManager[UsageMeter | None] = usage() if usage is not None else nullcontext()
            with scope as meter:
                proposal = self._propose(chosen.number, panel, run_id)
            base.update(proposal)
            if meter is not None:
                base["usage"] = meter.as_dict()
            params = proposal.get("params")
            if params is None:
                return {**base, "seconds": round(time.perf_counter() - clock, 3)}
        assert panel.plan is not None
        trial = score_trial(session, params, panel, panel.plan)
        return {
            **base,
            "params": params,
            "status": classify(trial),
            "metrics": trial.in_sample,
            "benchmark": trial.in_sample_benchmark,
            "validation": trial.validation.metrics,
            "validation_benchmark": trial.validation.benchmark,
            "folds": trial.folds,
            "returns": trial.returns,
            "seconds": round(time.perf_counter() - clock, 3),
        }

    def _propose(self, seed: int, panel: MarketPanel, run_id: str) -> dict[str, Any]:
        """One strategist call with its own seed; the same first-iteration prompt for every proposal."""
        context = self._prompts.build(RunHistory(iteration=1, total=1, data_notes=panel.data_notes))
        try:
            outcome = generate_with_feedback(
                self._strategist(seed), self._generator, context, max_attempts=1, run_id=run_id
            )
        except GenerationFailedError as exc:
            return {
                "status": IterationStatus.GENERATION_FAILED,
                "errors": [e.as_dict() for e in exc.errors],
                "attempts": exc.attempts,
                "llm_calls": exc.attempts,
                "tokens": exc.tokens,
            }
        result = outcome.result
        params: StrategyParams | None = result.params
        return {
            "params": params,
            "reasoning": result.reasoning,
            "attempts": outcome.attempts,
            "llm_calls": outcome.attempts,
            "tokens": outcome.tokens,
        }
