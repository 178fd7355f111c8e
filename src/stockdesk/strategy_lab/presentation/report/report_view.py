"""Everything the run report prints, prepared from the stored run and the champion's replay.

The template only prints: figures are formatted here, charts are specs drawn into inline SVG here,
heatmap colours are computed here. Text from the model (reasoning, errors, code) stays plain text:
the template autoescapes it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

from stockdesk.backtest.application.costs import (
    CN_COMMISSION,
    DEFAULT_COSTS,
    STAMP_DUTY_BEFORE,
    STAMP_DUTY_FROM,
    STAMP_DUTY_HALVED,
)
from stockdesk.shared import charts as shared_charts  # its renderers load matplotlib on first call only
from stockdesk.shared.charts import ChartSpec
from stockdesk.strategy_lab.application.charts import equity_chart, monthly_returns, turnover_chart
from stockdesk.strategy_lab.domain.dtos import (
    BacktestResult,
    IterationRecord,
    RunConfig,
    StrategyRunDTO,
    TradeRecord,
)
from stockdesk.strategy_lab.presentation.report.summary_view import Figures, SummaryView, fmt, summary_view

logger = logging.getLogger(__name__)

TRADES_SHOWN = 50  # first and last: a long backtest has thousands of orders
HEAT_FULL = 0.10  # a monthly return of +-10 % or more gets the full colour
UP, DOWN = (27, 127, 59), (179, 38, 30)
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


@dataclass(frozen=True)
class Fact:
    name: str
    value: str


@dataclass(frozen=True)
class ChartBlock:
    id: str
    title: str
    caption: str
    spec: ChartSpec

    @property
    def svg(self) -> Markup:
        """The chart as an inline <svg>; a chart that fails to draw is a one-line note, never a crash."""
        try:
            return Markup(shared_charts.render_inline_svg(self.spec))
        except Exception as exc:  # a report always renders
            logger.warning("chart %s could not be drawn", self.id, exc_info=True)
            return Markup("<p><b>Chart not drawn:</b> {}</p>").format(escape(f"{type(exc).__name__}: {exc}"))


@dataclass(frozen=True)
class HeatCell:
    text: str
    style: str
    value: float | None


@dataclass(frozen=True)
class HeatRow:
    year: int
    cells: list[HeatCell]
    total: HeatCell


@dataclass(frozen=True)
class TradeRow:
    day: str
    symbol: str
    side: str
    weight: str
    price: str


@dataclass(frozen=True)
class TradesView:
    total: int
    buys: int
    sells: int
    stops: int
    blocked: int
    first: list[TradeRow]
    last: list[TradeRow]

    @property
    def omitted(self) -> int:
        return self.total - len(self.first) - len(self.last)


@dataclass(frozen=True)
class ErrorRow:
    field_path: str
    error_type: str
    given: str
    suggestion: str
    message: str


@dataclass(frozen=True)
class IterationRow:
    number: int
    family: str
    params: list[tuple[str, Any]]
    in_sample: Figures
    validation: Figures
    status: str
    attempts: int
    champion: bool
    reasoning: str | None
    errors: list[ErrorRow]


@dataclass(frozen=True)
class ChampionView:
    number: int
    family: str
    params: list[tuple[str, Any]]
    reasoning: str | None
    code: str | None


@dataclass(frozen=True)
class RunReportView:
    id: str
    status: str
    created: str
    finished: str
    error: str | None
    setup: list[Fact]
    execution: list[Fact]
    costs: list[Fact]
    summary: SummaryView
    replayed: bool
    replay_window: str
    replay_notes: list[str]
    charts: list[ChartBlock]
    months: list[str]
    heatmap: list[HeatRow]
    trades: TradesView | None
    champion: ChampionView | None
    iterations: list[IterationRow]
    llm_calls: int
    tokens: int


def heat_cell(value: float | None) -> HeatCell:
    """Green for a gain, red for a loss, stronger with size up to +-HEAT_FULL; white text on strong cells."""
    if value is None:
        return HeatCell("", "", None)
    strength = min(abs(value) / HEAT_FULL, 1.0)
    base = UP if value >= 0 else DOWN
    r, g, b = (round(255 + (c - 255) * strength) for c in base)
    ink = "#fff" if strength > 0.6 else "#1f2328"
    return HeatCell(f"{value:+.1%}", f"background:rgb({r},{g},{b});color:{ink}", value)


def heatmap(replay: BacktestResult) -> list[HeatRow]:
    table = monthly_returns(replay)
    return [
        HeatRow(year, [heat_cell(v) for v in table.cells[year]], heat_cell(table.totals.get(year)))
        for year in table.years
    ]


def trade_row(trade: TradeRecord) -> TradeRow:
    return TradeRow(
        day=trade.day.isoformat(),
        symbol=trade.symbol,
        side=trade.side,
        weight=f"{trade.weight:+.2%}",
        price=fmt(trade.price, "{:,.2f}"),
    )


def trades_view(replay: BacktestResult) -> TradesView:
    trades = replay.trades
    sides = [t.side for t in trades]
    shown = len(trades) > 2 * TRADES_SHOWN
    first = trades[:TRADES_SHOWN] if shown else trades
    last = trades[-TRADES_SHOWN:] if shown else []
    return TradesView(
        total=len(trades),
        buys=sides.count("buy"),
        sells=sides.count("sell"),
        stops=sides.count("stop"),
        blocked=replay.blocked_orders,
        first=[trade_row(t) for t in first],
        last=[trade_row(t) for t in last],
    )


def error_row(error: dict[str, Any]) -> ErrorRow:
    given = error.get("given_value")
    return ErrorRow(
        field_path=str(error.get("field_path") or ""),
        error_type=str(error.get("error_type") or ""),
        given="" if given is None else str(given),
        suggestion=str(error.get("suggestion") or ""),
        message=str(error.get("message") or ""),
    )


def param_pairs(record: IterationRecord) -> list[tuple[str, Any]]:
    if record.params is None:
        return []
    return [(k, v) for k, v in record.params.model_dump().items() if k != "strategy_type"]


def iteration_row(record: IterationRecord) -> IterationRow:
    return IterationRow(
        number=record.number,
        family=record.params.strategy_type if record.params is not None else "–",
        params=param_pairs(record),
        in_sample=Figures.of(record.metrics),
        validation=Figures.of(record.validation),
        status=record.status.value,
        attempts=record.attempts,
        champion=record.is_champion,
        reasoning=record.reasoning,
        errors=[error_row(e) for e in record.errors],
    )


def setup_facts(run: StrategyRunDTO, replay: BacktestResult | None) -> list[Fact]:
    config: RunConfig = run.config
    window = config.window
    universe = ", ".join(replay.universe if replay else window.universe or []) or "every stored symbol"
    split = config.split
    if split.mode == "fixed":
        cut = f"fixed: in-sample {split.in_sample:.0%} · validation {split.validation:.0%}"
    else:
        rolled = split.in_sample + split.validation
        cut = f"walk-forward, {split.folds} folds: in-sample and validation {rolled:.0%}"
    start = window.start.isoformat() if window.start else "3 years before the end"
    end = window.end.isoformat() if window.end else "newest stored bar"
    return [
        Fact("Universe", universe),
        Fact("Window", f"{start} → {end}"),
        Fact("Split", f"{cut} · holdout {split.holdout:.0%}"),
        Fact(
            "Iterations",
            f"{len(run.iterations)} of {config.iterations} (up to {config.max_attempts} attempts each)",
        ),
        Fact("Champion drawdown limit", f"{config.max_drawdown_limit:.0%}"),
    ]


def execution_facts(run: StrategyRunDTO) -> list[Fact]:
    e = run.config.execution
    capital = (
        "fractional shares" if e.capital is None else f"{e.capital:,.0f} (A-shares in lots of 100 shares)"
    )
    return [
        Fact("Fills", "next open after the decision"),
        Fact("Capital", capital),
        Fact("Slippage", f"{e.slippage:.2%} per side"),
        Fact(
            "Price limits",
            "on: no buy at a limit-up open, no sell at a limit-down open" if e.price_limits else "off",
        ),
        Fact("T+1", "on: A-shares bought today are sold tomorrow at the earliest" if e.t_plus_one else "off"),
    ]


def cost_facts(replay: BacktestResult | None) -> list[Fact]:
    """Per market as charged (before slippage): A-shares follow the dated schedule unless overridden."""
    if replay is None:
        return []
    facts = []
    for market, model in sorted(replay.costs.items()):
        if market == "CN" and model == DEFAULT_COSTS["CN"]:
            halved = STAMP_DUTY_HALVED.isoformat()
            duty = f"stamp duty on sells {STAMP_DUTY_BEFORE:.2%} before {halved}, then {STAMP_DUTY_FROM:.2%}"
            facts.append(Fact(market, f"commission {CN_COMMISSION:.2%} each side; {duty}"))
        else:
            facts.append(Fact(market, f"buy {model.buy:.3%} · sell {model.sell:.3%}"))
    return facts


def champion_view(run: StrategyRunDTO) -> ChampionView | None:
    record = run.champion
    if record is None or record.params is None:
        return None
    return ChampionView(
        number=record.number,
        family=record.params.strategy_type,
        params=param_pairs(record),
        reasoning=record.reasoning,
        code=record.code,
    )


def replay_charts(run: StrategyRunDTO, replay: BacktestResult) -> list[ChartBlock]:
    plan = run.summary.plan if run.summary is not None else None
    shown = run.champion.number if run.champion is not None else None
    who = f"iteration {shown}" if shown is not None else "best iteration"
    specs = [
        equity_chart(replay, f"{replay.params.strategy_type} ({who}) against the equal-weight universe", plan)
    ]
    turnover = turnover_chart(replay)
    if turnover is not None:
        specs.append(turnover)
    return [ChartBlock(s.id, s.title, s.caption, s) for s in specs]


def stamp(moment: Any) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment is not None else "–"


def build_report_view(run: StrategyRunDTO, replay: BacktestResult | None) -> RunReportView:
    has_curve = replay is not None and len(replay.equity_curve) > 1
    return RunReportView(
        id=run.id,
        status=run.status.value,
        created=stamp(run.created_at),
        finished=stamp(run.finished_at),
        error=run.error,
        setup=setup_facts(run, replay),
        execution=execution_facts(run),
        costs=cost_facts(replay),
        summary=summary_view(run),
        replayed=has_curve,
        replay_window=f"{replay.start.isoformat()} → {replay.end.isoformat()}" if replay is not None else "",
        replay_notes=list(replay.notes) if replay is not None else [],
        charts=replay_charts(run, replay) if replay is not None and has_curve else [],
        months=list(MONTHS),
        heatmap=heatmap(replay) if replay is not None and has_curve else [],
        trades=trades_view(replay) if replay is not None else None,
        champion=champion_view(run),
        iterations=[iteration_row(r) for r in run.iterations],
        llm_calls=run.llm_calls,
        tokens=run.tokens,
    )
