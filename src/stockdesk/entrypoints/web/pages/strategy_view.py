"""The strategy lab pages' view models: the start form, a run's iterations, its verdict, its best strategy.

The form is read through the REST body (`RunBody`), so the page accepts exactly what
`POST /api/v1/strategy/runs` accepts; figures are formatted with the CLI's metric formats. The
verdict (the champion's in-sample / validation / holdout figures, trials, deflated Sharpe, PBO) is
the run report's own view data (`strategy_lab.presentation.report.summary_view`), so the page and
the HTML report agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from stockdesk.backtest.application import PerformanceMetrics, StrategyMetrics
from stockdesk.entrypoints.web.pages.form_text import refused, split_list, stamp
from stockdesk.entrypoints.web.pages.jobs_view import JobPanel
from stockdesk.strategy_lab.application.trials import best_scored
from stockdesk.strategy_lab.domain.dtos import (
    DEFAULT_MAX_DRAWDOWN,
    IterationRecord,
    StrategyRunDTO,
    UnreadableRow,
)
from stockdesk.strategy_lab.presentation.cli.tables import ROWS, STRATEGY_ONLY
from stockdesk.strategy_lab.presentation.report import SummaryView, summary_view
from stockdesk.strategy_lab.presentation.rest.strategy_schemas import RunBody

FAILED = ("generation_failed", "backtest_failed")
STATUS_BADGE = {  # iteration status -> the badge colour class of app.css
    "beat_benchmark": "state-completed",
    "ran": "state-done",
    "invalid_metrics": "state-partial",
    "backtest_failed": "state-failed",
    "generation_failed": "state-failed",
}


@dataclass
class RunForm:
    """What the start form holds (as typed), so a refused form comes back filled in."""

    universe: str = ""
    start: str = ""
    end: str = ""
    iterations: str = "5"
    max_drawdown_limit: str = str(DEFAULT_MAX_DRAWDOWN)
    max_attempts: str = "3"
    split_mode: str = "fixed"
    folds: str = "3"
    capital: str = "1000000"

    def body(self) -> RunBody:
        """The REST body of this form; a value it refuses is a 400 naming the field."""
        data: dict[str, Any] = {
            "universe": [s.upper() for s in split_list(self.universe)] or None,
            "start": self.start.strip() or None,
            "end": self.end.strip() or None,
            "iterations": self.iterations.strip(),
            "max_drawdown_limit": self.max_drawdown_limit.strip(),
            "max_attempts": self.max_attempts.strip(),
            "split": {"mode": self.split_mode.strip(), "folds": self.folds.strip()},
            "execution": {"capital": self.capital.strip()},
        }
        try:
            return RunBody.model_validate(data)
        except ValidationError as exc:
            raise refused(exc) from exc


def fmt(value: float | int | None, spec: str) -> str:
    return "–" if value is None else spec.format(value)


@dataclass(frozen=True)
class IterationView:
    number: int
    status: str
    badge: str
    champion: bool
    family: str
    params: list[tuple[str, Any]]
    reasoning: str | None
    sharpe: str
    annual: str
    drawdown: str
    trades: str
    validation_sharpe: str
    attempts: int
    seconds: str
    tokens: int
    errors: list[dict[str, Any]]
    failed: bool


def iteration_view(record: IterationRecord) -> IterationView:
    m = record.metrics
    return IterationView(
        number=record.number,
        status=record.status.value,
        badge=STATUS_BADGE.get(record.status.value, ""),
        champion=record.is_champion,
        family=record.params.strategy_type if record.params else "",
        params=list(record.params.model_dump().items()) if record.params else [],
        reasoning=record.reasoning,
        sharpe=fmt(m.sharpe if m else None, "{:.2f}"),
        annual=fmt(m.annual_return if m else None, "{:.1%}"),
        drawdown=fmt(m.max_drawdown if m else None, "{:.1%}"),
        trades=fmt(m.trades if m else None, "{:,}"),
        validation_sharpe=fmt(record.validation.sharpe if record.validation else None, "{:.2f}"),
        attempts=record.attempts,
        seconds=f"{record.seconds:.1f}",
        tokens=record.tokens,
        errors=record.errors,
        failed=record.status.value in FAILED,
    )


@dataclass(frozen=True)
class RunView:
    """A run as a list row or the live part of its page; `live` is the executor's state, if any."""

    id: str
    state: str
    live: bool
    status: str
    universe: str
    start: str
    end: str
    iterations: list[IterationView]
    planned: int
    max_drawdown_limit: str
    max_attempts: int
    created: str
    finished_at: str
    error: str | None
    llm_calls: int
    tokens: int
    champion: int | None
    summary: SummaryView
    unreadable: list[UnreadableRow]  # stored rows left out, each named on the page

    @property
    def resumable(self) -> bool:
        return not self.live and self.status != "completed"

    @property
    def panel(self) -> JobPanel:
        """The run page's progress panel: iterations stored of those planned."""
        done = len(self.iterations)
        return JobPanel(
            id=self.id, kind="strategy-run", state=self.state, live=self.live,
            done=done, total=self.planned, settled=done, resumable=self.resumable,
        )  # fmt: skip


def run_view(run: StrategyRunDTO, live: str | None) -> RunView:
    window = run.config.window
    return RunView(
        id=run.id,
        state=live or run.status.value,
        live=live is not None,
        status=run.status.value,
        universe=", ".join(window.universe) if window.universe else "",
        start=window.start.isoformat() if window.start else "",
        end=window.end.isoformat() if window.end else "",
        iterations=[iteration_view(r) for r in run.iterations],
        planned=run.config.iterations,
        max_drawdown_limit=f"{run.config.max_drawdown_limit:.0%}",
        max_attempts=run.config.max_attempts,
        created=stamp(run.created_at),
        finished_at=stamp(run.finished_at),
        error=run.error,
        llm_calls=run.llm_calls,
        tokens=run.tokens,
        champion=run.champion.number if run.champion else None,
        summary=summary_view(run),
        unreadable=run.unreadable,
    )


def best_record(run: StrategyRunDTO) -> IterationRecord | None:
    """The champion, else the best-scoring iteration (what `replay` draws by default)."""
    return run.champion or best_scored(run.iterations)


def metrics_rows(record: IterationRecord) -> list[dict[str, str]]:
    """Strategy against the equal-weight universe, in the CLI table's rows and formats."""
    return [] if record.metrics is None else metric_rows(record.metrics, record.benchmark)


def metric_rows(
    m: StrategyMetrics, b: PerformanceMetrics | None, gross: StrategyMetrics | None = None
) -> list[dict[str, str]]:
    """After costs, without costs (when known) and the equal-weight universe, in the CLI table's rows
    and formats (returns in %, turnover as a multiple, counts with separators)."""
    shared = [(name, spec, fmt(getattr(b, name, None), spec)) for _, name, spec in ROWS]
    own = [(name, spec, "–") for _, name, spec in STRATEGY_ONLY]
    return [
        {
            "name": name,
            "strategy": fmt(getattr(m, name), spec),
            "gross": fmt(getattr(gross, name, None), spec),
            "benchmark": benchmark,
        }
        for name, spec, benchmark in shared + own
    ]
