"""A run's verdict as view data: the champion over in-sample / validation / holdout (after and without
costs, with the equal-weight universe), the trials, deflated Sharpe and PBO.

Both the HTML report and the web run page print this, so the figures are formatted once, here; the
templates add the words (English in the report, the i18n catalogs on the web page).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stockdesk.backtest.application import PerformanceMetrics
from stockdesk.strategy_lab.domain.dtos import Period, SplitFigures, SplitPlan, StrategyRunDTO

SPLIT_KEYS = ("in_sample", "validation", "holdout")
SPLIT_LABELS = {"in_sample": "in-sample", "validation": "validation", "holdout": "holdout"}
PBO_RANDOM = 0.5  # at or above: picking the in-sample best did no better than picking at random


def fmt(value: float | int | None, spec: str) -> str:
    """A figure in `spec`'s format; a missing one is a dash."""
    return "–" if value is None else spec.format(value)


def period_text(period: Period) -> str:
    return f"{period.start.isoformat()} → {period.end.isoformat()} ({period.days} days)"


@dataclass(frozen=True)
class Figures:
    """Sharpe, annual return and max drawdown of one curve, formatted."""

    sharpe: str
    annual_return: str
    max_drawdown: str

    @classmethod
    def of(cls, metrics: PerformanceMetrics | None) -> Figures:
        if metrics is None:
            return cls("–", "–", "–")
        return cls(
            fmt(metrics.sharpe, "{:.2f}"),
            fmt(metrics.annual_return, "{:.1%}"),
            fmt(metrics.max_drawdown, "{:.1%}"),
        )


@dataclass(frozen=True)
class SplitRow:
    """The champion over one split: after costs (with trades and turnover), without costs, the universe."""

    key: str
    label: str
    periods: list[str]
    net: Figures
    trades: str
    turnover: str
    gross: Figures
    benchmark: Figures
    spans: list[tuple[str, str, int]] = field(default_factory=list)  # (start, end, days): a page words them

    @classmethod
    def of(cls, key: str, figures: SplitFigures) -> SplitRow:
        return cls(
            key=key,
            label=SPLIT_LABELS[key],
            periods=[period_text(p) for p in figures.periods],
            spans=[(p.start.isoformat(), p.end.isoformat(), p.days) for p in figures.periods],
            net=Figures.of(figures),
            trades=fmt(figures.trades, "{:,}"),
            turnover=fmt(figures.turnover, "{:.1f}×"),
            gross=Figures.of(figures.gross),
            benchmark=Figures.of(figures.benchmark),
        )


@dataclass(frozen=True)
class PlanRow:
    label: str
    start: str
    end: str
    days: int


def plan_rows(plan: SplitPlan) -> list[PlanRow]:
    """The periods of the plan in time order (walk-forward: each fold's in-sample and validation)."""
    rows: list[PlanRow] = []
    many = len(plan.folds) > 1
    for n, fold in enumerate(plan.folds, start=1):
        suffix = f" {n}" if many else ""
        for label, period in (("in-sample", fold.in_sample), ("validation", fold.validation)):
            rows.append(
                PlanRow(label + suffix, period.start.isoformat(), period.end.isoformat(), period.days)
            )
    rows.append(
        PlanRow("holdout", plan.holdout.start.isoformat(), plan.holdout.end.isoformat(), plan.holdout.days)
    )
    return rows


@dataclass(frozen=True)
class OverfittingView:
    """The deflated Sharpe ratio and PBO with the inputs a reader needs to judge them."""

    trials: int
    deflated_sharpe: float | None
    dsr: str
    sharpe_per_day: str
    sr0_per_day: str
    observations: int
    skewness: str
    kurtosis: str
    pbo: float | None
    pbo_text: str
    pbo_share: str
    partitions: int | None
    combinations: int | None
    pbo_worse_than_random: bool
    notes: list[str]


@dataclass(frozen=True)
class SummaryView:
    """`state`: pending (the run has no summary yet), no_champion, or ready."""

    state: str
    status: str
    champion: int | None
    family: str | None
    families_tried: list[str]
    trials: int
    mode: str | None
    plan: list[PlanRow] = field(default_factory=list)
    splits: list[SplitRow] = field(default_factory=list)
    overfitting: OverfittingView | None = None
    notes: list[str] = field(default_factory=list)
    # every note (the overfitting ones too) in each language; empty for a run stored before (its
    # notes, English, are `notes` and the overfitting view's)
    worded_notes: dict[str, list[str]] = field(default_factory=dict)

    @property
    def holdout(self) -> SplitRow | None:
        return next((row for row in self.splits if row.key == "holdout"), None)


def overfitting_view(run: StrategyRunDTO) -> OverfittingView | None:
    if run.summary is None:
        return None
    o = run.summary.overfitting
    return OverfittingView(
        trials=o.trials,
        deflated_sharpe=o.deflated_sharpe,
        dsr=fmt(o.deflated_sharpe, "{:.2f}"),
        sharpe_per_day=fmt(o.validation_sharpe_per_day, "{:.4f}"),
        sr0_per_day=fmt(o.expected_max_sharpe_per_day, "{:.4f}"),
        observations=o.observations,
        skewness=fmt(o.skewness, "{:.2f}"),
        kurtosis=fmt(o.kurtosis, "{:.2f}"),
        pbo=o.pbo,
        pbo_text=fmt(o.pbo, "{:.2f}"),
        pbo_share=fmt(o.pbo, "{:.0%}"),
        partitions=o.partitions,
        combinations=o.combinations,
        pbo_worse_than_random=o.pbo is not None and o.pbo >= PBO_RANDOM,
        notes=list(o.notes),
    )


def summary_view(run: StrategyRunDTO) -> SummaryView:
    """What a run's verdict box shows; a run without a summary (running, interrupted) says so."""
    champion = run.champion
    family = champion.params.strategy_type if champion is not None and champion.params is not None else None
    common = {
        "status": run.status.value,
        "champion": champion.number if champion is not None else None,
        "family": family,
        "families_tried": list(run.families_tried),
        "trials": run.trials,
    }
    summary = run.summary
    if summary is None:
        return SummaryView(state="pending", mode=run.config.split.mode, **common)
    splits = summary.splits
    rows = [SplitRow.of(key, getattr(splits, key)) for key in SPLIT_KEYS] if splits is not None else []
    own_notes = set(summary.overfitting.notes)
    return SummaryView(
        state="ready" if splits is not None else "no_champion",
        mode=summary.plan.mode,
        plan=plan_rows(summary.plan),
        splits=rows,
        overfitting=overfitting_view(run),
        notes=[note for note in summary.notes if note not in own_notes],
        worded_notes={lang: list(texts.get("notes") or []) for lang, texts in summary.i18n.items()},
        **common,
    )
