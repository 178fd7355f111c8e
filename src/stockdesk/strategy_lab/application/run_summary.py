"""The end of a run: the champion's three splits (the holdout scored here, once) and the overfitting
statistics over every trial (deflated Sharpe of the champion, PBO by CSCV)."""

from __future__ import annotations

from typing import Any

import numpy as np

from stockdesk.shared.wording import both, say
from stockdesk.strategy_lab.application.backtest_service import BacktestSession, PeriodScore
from stockdesk.strategy_lab.application.market_panel import MarketPanel
from stockdesk.strategy_lab.application.overfitting import (
    deflated_sharpe,
    partitions_for,
    probability_of_backtest_overfitting,
)
from stockdesk.strategy_lab.application.trials import (
    SCORED,
    pick_champion,
    score_trial,
)
from stockdesk.strategy_lab.domain.dtos import (
    ChampionSplits,
    IterationRecord,
    OverfittingFigures,
    Period,
    RunSummary,
    SplitFigures,
    SplitPlan,
)

MIN_PBO_TRIALS = 2
Note = tuple[str, dict[str, Any]]  # a note as its shared catalogue key and values: worded in both languages


def summarise(
    records: list[IterationRecord],
    max_drawdown_limit: float,
    session: BacktestSession,
    panel: MarketPanel,
) -> RunSummary:
    """`panel` is the whole window (with its plan): the only place the holdout is read."""
    plan = panel.plan
    assert plan is not None, "a run's panel carries its split plan"
    champion = pick_champion(records, max_drawdown_limit)
    trials = [r for r in records if r.status in SCORED and r.returns is not None]
    notes: list[Note] = []
    splits = None
    if champion is not None and champion.params is not None:
        splits = champion_splits(champion, session, panel, plan)
    else:
        notes.append(("strategy.note.no_champion", {}))
    figures = overfitting(champion, trials, notes)
    return RunSummary(
        plan=plan,
        splits=splits,
        overfitting=figures,
        notes=[say(key, "en", **values) for key, values in notes],
        i18n=both(lambda lang: {"notes": [say(key, lang, **values) for key, values in notes]}),
    )


def champion_splits(
    champion: IterationRecord, session: BacktestSession, panel: MarketPanel, plan: SplitPlan
) -> ChampionSplits:
    assert champion.params is not None
    selection = score_trial(session, champion.params, panel.until(plan.selection.end), plan)
    weights = session.weights(champion.params, panel)
    holdout = session.period(champion.params, panel, weights, plan.holdout.start, plan.holdout.end)
    in_sample = SplitFigures(
        **selection.in_sample.model_dump(),
        periods=plan.in_sample,
        gross=selection.in_sample_gross,
        benchmark=selection.in_sample_benchmark,
    )
    return ChampionSplits(
        in_sample=in_sample,
        validation=_figures(selection.validation, [plan.validation]),
        holdout=_figures(holdout, [plan.holdout]),
    )


def _figures(scored: PeriodScore, periods: list[Period]) -> SplitFigures:
    return SplitFigures(
        **scored.metrics.model_dump(), periods=periods, gross=scored.gross_metrics, benchmark=scored.benchmark
    )


def per_period_sharpe(returns: list[float]) -> float:
    values = np.asarray(returns, dtype="float64")
    if len(values) < 2:
        return 0.0
    std = float(values.std(ddof=1))
    return float(values.mean()) / std if std > 1e-12 else 0.0


def overfitting(
    champion: IterationRecord | None, trials: list[IterationRecord], notes: list[Note]
) -> OverfittingFigures:
    """The overfitting figures; what could not be computed is added to `notes` (catalogue keys)."""
    figures: dict[str, object] = {"trials": len(trials), "deflated_sharpe": None, "pbo": None}
    own: list[Note] = []
    if champion is not None and champion.returns is not None and champion.returns.validation:
        sharpes = [per_period_sharpe(t.returns.validation) for t in trials if t.returns is not None]
        dsr = deflated_sharpe(np.asarray(champion.returns.validation[1:]), sharpes or [0.0])
        figures.update(
            deflated_sharpe=dsr.deflated_sharpe,
            validation_sharpe_per_day=dsr.sharpe,
            expected_max_sharpe_per_day=dsr.expected_max_sharpe,
            skewness=dsr.skewness,
            kurtosis=dsr.kurtosis,
            observations=dsr.observations,
        )
    else:
        own.append(("strategy.note.no_dsr", {}))
    lengths = {len(t.returns.selection) for t in trials if t.returns is not None}
    if len(trials) < MIN_PBO_TRIALS:
        own.append(("strategy.note.pbo_few", {"need": MIN_PBO_TRIALS, "trials": len(trials)}))
    elif len(lengths) != 1:
        own.append(("strategy.note.pbo_lengths", {}))
    else:
        matrix = np.column_stack(
            [np.asarray(t.returns.selection[1:]) for t in trials if t.returns is not None]
        )
        try:
            result = probability_of_backtest_overfitting(matrix, partitions_for(matrix.shape[0]))
        except ValueError as exc:
            own.append(("strategy.note.pbo_error", {"error": str(exc)}))
        else:
            figures.update(pbo=result.pbo, partitions=result.partitions, combinations=result.combinations)
    notes.extend(own)
    return OverfittingFigures(**figures, notes=[say(key, "en", **values) for key, values in own])  # type: ignore[arg-type]
