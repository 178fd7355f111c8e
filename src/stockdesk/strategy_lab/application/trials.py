"""One trial (a parameter set) scored over a run's splits, and how the champion is chosen.

The loop is shown in-sample figures only; the champion is the best VALIDATION Sharpe among trials
whose validation drawdown stays within the run's limit; the holdout is scored once, at the end
(run_summary.py). Walk-forward runs score each fold's in-sample window and report their mean to the
loop; their validation figure is the validation span (the folds' windows back to back) simulated
as one period, so every trial is compared on the same out-of-sample days.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from stockdesk.backtest.application import PerformanceMetrics, StrategyMetrics
from stockdesk.strategy_lab.application.backtest_service import BacktestSession, PeriodScore
from stockdesk.strategy_lab.application.market_panel import MarketPanel
from stockdesk.strategy_lab.domain.dtos import (
    SCORED_STATUSES,
    FoldFigures,
    IterationRecord,
    SplitPlan,
    TrialReturns,
)
from stockdesk.strategy_lab.domain.params import StrategyParams

SCORED = SCORED_STATUSES
RETURN_DECIMALS = 8


@dataclass(frozen=True, eq=False)
class TrialScore:
    in_sample: StrategyMetrics
    in_sample_gross: StrategyMetrics
    in_sample_benchmark: PerformanceMetrics
    validation: PeriodScore
    folds: list[FoldFigures]
    returns: TrialReturns


def score_trial(
    session: BacktestSession, params: StrategyParams, panel: MarketPanel, plan: SplitPlan
) -> TrialScore:
    """Run the strategy once on the selection panel, then simulate every period of the plan."""
    weights = session.weights(params, panel)
    in_sample = [session.period(params, panel, weights, p.start, p.end) for p in plan.in_sample]
    span = plan.validation
    validation = session.period(params, panel, weights, span.start, span.end)
    selection = plan.selection
    whole = session.period(params, panel, weights, selection.start, selection.end)
    folds = []
    if plan.mode == "walk_forward":
        for fold, scored in zip(plan.folds, in_sample, strict=True):
            fold_val = session.period(params, panel, weights, fold.validation.start, fold.validation.end)
            folds.append(
                FoldFigures(in_sample_sharpe=scored.metrics.sharpe, validation_sharpe=fold_val.metrics.sharpe)
            )
    return TrialScore(
        in_sample=average_metrics([s.metrics for s in in_sample]),
        in_sample_gross=average_metrics([s.gross_metrics for s in in_sample]),
        in_sample_benchmark=average_performance([s.benchmark for s in in_sample]),
        validation=validation,
        folds=folds,
        returns=TrialReturns(
            selection=_rounded(whole.sim.returns.to_numpy()),
            validation=_rounded(validation.sim.returns.to_numpy()),
        ),
    )


def average_metrics(items: list[StrategyMetrics]) -> StrategyMetrics:
    """The mean of each figure over walk-forward folds (one fold: itself)."""
    if len(items) == 1:
        return items[0]
    return StrategyMetrics.model_validate(_means(items))


def average_performance(items: list[PerformanceMetrics]) -> PerformanceMetrics:
    if len(items) == 1:
        return items[0]
    return PerformanceMetrics.model_validate(_means(items))


def _means(items: list[PerformanceMetrics]) -> dict[str, float | int]:
    rows = [item.model_dump() for item in items]
    out: dict[str, float | int] = {}
    for name, value in rows[0].items():
        mean = float(np.mean([row[name] for row in rows]))
        out[name] = round(mean) if isinstance(value, int) else mean
    return out


def _rounded(values: np.ndarray) -> list[float]:
    return [round(float(v), RETURN_DECIMALS) for v in values]


def _validation_sharpe(record: IterationRecord) -> float | None:
    metrics = record.validation or record.metrics  # runs from before the splits: their only figure
    return None if metrics is None else metrics.sharpe


def pick_champion(records: list[IterationRecord], max_drawdown_limit: float) -> IterationRecord | None:
    """Best validation Sharpe among scored trials whose validation drawdown stays within the limit
    (earliest wins ties)."""
    eligible = []
    for r in records:
        figures = r.validation or r.metrics
        if r.status in SCORED and figures is not None and figures.max_drawdown >= -max_drawdown_limit:
            eligible.append(r)
    return max(eligible, key=lambda r: (_validation_sharpe(r), -r.number), default=None)


def best_scored(records: list[IterationRecord]) -> IterationRecord | None:
    """Best validation Sharpe of every scored trial, whatever its drawdown (shown without a champion)."""
    return pick_champion(records, max_drawdown_limit=1.0)


def best_in_sample(records: list[IterationRecord], max_drawdown_limit: float) -> IterationRecord | None:
    """What the loop may call its reference: the best IN-SAMPLE Sharpe within the drawdown limit."""
    eligible = [
        r
        for r in records
        if r.status in SCORED and r.metrics is not None and r.metrics.max_drawdown >= -max_drawdown_limit
    ]
    return max(eligible, key=lambda r: (r.metrics.sharpe, -r.number), default=None)  # type: ignore[union-attr]


def families_tried(records: list[IterationRecord]) -> list[str]:
    """Families of the parameter sets the loop produced, in the order first tried."""
    return list(dict.fromkeys(r.params.strategy_type for r in records if r.params is not None))
