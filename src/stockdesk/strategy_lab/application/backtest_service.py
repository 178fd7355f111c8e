"""Parameters -> strategy run in the sandbox -> weights -> shared execution -> metrics.

Weights come from the sandbox once per parameter set and panel; each period (a split, or the whole
window) is then simulated on its own from cash, through the same execution module `stockdesk
evaluate` uses (next-open fills, T+1, price limits, suspensions, A-share lots and costs), once with
costs and once without, so both figures sit side by side.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date

import numpy as np
import pandas as pd

from stockdesk.backtest.application import (
    CostModel,
    ExecutionRules,
    PerformanceMetrics,
    Simulation,
    StrategyMetrics,
    TradingPanel,
    cost_frames,
    cost_model,
    equal_weight_benchmark,
    execute,
    performance,
    strategy_metrics,
    zero_costs,
)
from stockdesk.strategy_lab.application.fundamentals import CATALYST_FIGURES
from stockdesk.strategy_lab.application.market_data import StrategyMarketData
from stockdesk.strategy_lab.application.market_panel import MarketPanel, load_panel
from stockdesk.strategy_lab.domain.dtos import (
    BacktestResult,
    BacktestWindow,
    EquityPoint,
    EquityTurnover,
    ExecutionSettings,
    SplitConfig,
    TradeRecord,
)
from stockdesk.strategy_lab.domain.errors import StrategyExecutionError
from stockdesk.strategy_lab.domain.params import MomentumStrategyParams, StrategyParams
from stockdesk.strategy_lab.domain.ports import IStrategySandbox, IStrategySession


@dataclass(frozen=True, eq=False)
class PeriodScore:
    """One period simulated from cash: after costs, without costs, and the equal-weight universe."""

    sim: Simulation
    gross: Simulation
    metrics: StrategyMetrics
    gross_metrics: StrategyMetrics
    benchmark_nav: pd.Series
    benchmark: PerformanceMetrics


class BacktestService:
    def __init__(
        self,
        market: StrategyMarketData,
        sandbox: IStrategySandbox,
        costs: dict[str, CostModel] | None = None,
    ):
        self._market = market
        self._sandbox = sandbox
        self._costs = costs

    def panel(self, window: BacktestWindow, split: SplitConfig | None = None) -> MarketPanel:
        return load_panel(self._market, window, split)

    def backtest(
        self, params: StrategyParams, window: BacktestWindow, execution: ExecutionSettings | None = None
    ) -> BacktestResult:
        """The no-LLM path: score `params` on the window's panel."""
        return self.score(params, self.panel(window), execution)

    def score(
        self, params: StrategyParams, panel: MarketPanel, execution: ExecutionSettings | None = None
    ) -> BacktestResult:
        """One backtest of the whole window in a session of its own."""
        with self.session(execution) as session:
            return session.score(params, panel)

    @contextmanager
    def session(self, execution: ExecutionSettings | None = None) -> Iterator[BacktestSession]:
        """Backtests sharing one sandbox worker (an autonomous run's iterations)."""
        with self._sandbox.session() as strategies:
            yield BacktestSession(strategies, self._costs, execution or ExecutionSettings())


class BacktestSession:
    def __init__(
        self, strategies: IStrategySession, costs: dict[str, CostModel] | None, execution: ExecutionSettings
    ):
        self._strategies = strategies
        self._costs = costs
        self.execution = execution

    def weights(self, params: StrategyParams, panel: MarketPanel) -> pd.DataFrame:
        """The strategy's target weights on `panel` (its code rendered and run in the sandbox)."""
        weights = self._strategies.weights(params, panel.closes, panel.fundamentals)  # pickled: never mutated
        return _checked(weights, panel.closes)

    def period(
        self, params: StrategyParams, panel: MarketPanel, weights: pd.DataFrame, start: date, end: date
    ) -> PeriodScore:
        """Simulate the decisions taken inside [start, end] over that period, from cash."""
        trading = panel.between(start, end)
        closes = trading.close
        targets = weights.loc[weights.index.isin(closes.index)]
        targets = targets.reindex(columns=closes.columns, fill_value=0.0).astype(float)
        sim = self._simulate(trading, targets, params.stop_loss, with_costs=True)
        gross = self._simulate(trading, targets, params.stop_loss, with_costs=False)
        bench = equal_weight_benchmark(closes)
        return PeriodScore(
            sim=sim,
            gross=gross,
            metrics=strategy_metrics(sim),
            gross_metrics=strategy_metrics(gross),
            benchmark_nav=bench,
            benchmark=performance(bench),
        )

    def score(self, params: StrategyParams, panel: MarketPanel) -> BacktestResult:
        """The whole window: metrics with and without costs, curves, turnover and trades."""
        weights = self.weights(params, panel)
        scored = self.period(params, panel, weights, panel.start, panel.end)
        return self.result(params, panel, scored)

    def result(self, params: StrategyParams, panel: MarketPanel, scored: PeriodScore) -> BacktestResult:
        sim, gross = scored.sim, scored.gross
        return BacktestResult(
            params=params,
            universe=panel.universe,
            start=sim.nav.index[0].date(),
            end=sim.nav.index[-1].date(),
            metrics=scored.metrics,
            gross_metrics=scored.gross_metrics,
            benchmark=scored.benchmark,
            beat_benchmark=scored.metrics.sharpe > scored.benchmark.sharpe,
            costs={m: cost_model(m, self._costs) for m in sorted(set(panel.markets.values()))},
            execution=self.execution,
            equity_curve=[
                EquityPoint(day=day.date(), strategy=round(s, 6), benchmark=round(b, 6), gross=round(g, 6))
                for day, s, b, g in zip(sim.nav.index, sim.nav, scored.benchmark_nav, gross.nav, strict=True)
            ],
            turnover=[
                EquityTurnover(day=day.date(), turnover=round(float(t), 6)) for day, t in sim.turnover.items()
            ],
            trades=_trades(sim),
            blocked_orders=sim.blocked_by_limit + sim.skipped_suspended,
            notes=[*panel.notes, *_catalyst_notes(params, panel, scored.metrics.trades)],
        )

    def _simulate(
        self, trading: TradingPanel, targets: pd.DataFrame, stop_loss: float, *, with_costs: bool
    ) -> Simulation:
        settings = self.execution
        buy, sell = (
            cost_frames(trading, self._costs, settings.slippage) if with_costs else zero_costs(trading)
        )
        return simulate_orders(trading, targets, stop_loss, buy, sell, execution_rules(settings))


def execution_rules(settings: ExecutionSettings) -> ExecutionRules:
    """The run's settings as the shared execution module's rules (A-share lots of 100, T+1 on CN)."""
    return ExecutionRules(
        price_limits=settings.price_limits,
        t_plus_one_markets={"CN"} if settings.t_plus_one else set(),
        capital=settings.capital,
    )


def simulate_orders(
    trading: TradingPanel,
    targets: pd.DataFrame,
    stop_loss: float | None,
    buy_cost: pd.DataFrame | pd.Series,
    sell_cost: pd.DataFrame | pd.Series,
    rules: ExecutionRules,
) -> Simulation:
    """The strategy lab's one way into the shared execution module (the one `stockdesk evaluate` uses)."""
    return execute(trading, targets, stop_loss=stop_loss, buy_cost=buy_cost, sell_cost=sell_cost, rules=rules)


def _trades(sim: Simulation) -> list[TradeRecord]:
    frame = sim.trades
    if len(frame) == 0:
        return []
    return [
        TradeRecord(
            day=pd.Timestamp(row["date"]).date(),
            symbol=str(row["symbol"]),
            side="stop" if row["reason"] == "stop" else str(row["side"]).lower(),  # type: ignore[arg-type]
            weight=round(float(row["weight_change"]), 6),
            price=None if pd.isna(row.get("price")) else round(float(row["price"]), 4),
        )
        for row in frame.to_dict("records")
    ]


def _catalyst_notes(params: StrategyParams, panel: MarketPanel, trades: int) -> list[str]:
    """Say why a strategy could not trade a symbol, or at all, instead of leaving a silent zero."""
    notes = []
    if isinstance(params, MomentumStrategyParams):
        column = CATALYST_FIGURES[params.catalyst_type]
        blind = panel.missing_figures[params.catalyst_type]
        if blind:
            notes.append(
                f"no quarterly {column} data, so the {params.catalyst_type} catalyst never passes: "
                f"{', '.join(blind)}"
            )
    if trades == 0:
        notes.append(f"no trades: no symbol passed the {params.strategy_type} filters on any rebalance")
    return notes


def _checked(weights: object, closes: pd.DataFrame) -> pd.DataFrame:
    """Check what the strategy returned (the decisions it took on any day of the panel)."""
    if not isinstance(weights, pd.DataFrame):
        raise StrategyExecutionError(f"the strategy returned {type(weights).__name__}, not a DataFrame")
    unknown = set(weights.columns) - set(closes.columns)
    if unknown:
        raise StrategyExecutionError(f"the strategy returned weights for unknown symbols: {sorted(unknown)}")
    values = weights.to_numpy(dtype=float, na_value=np.nan)
    if not np.isfinite(values).all() or (values < -1e-12).any():
        raise StrategyExecutionError("the strategy returned missing, infinite or negative weights")
    if (values.sum(axis=1) > 1.0 + 1e-9).any():
        raise StrategyExecutionError("the strategy returned weights summing above 1 on some day")
    return weights.loc[weights.index.isin(closes.index)]


def finite_metrics(*metrics: PerformanceMetrics) -> bool:
    """Whether every reported statistic is a real number (the engine never should, but check)."""
    values = [v for m in metrics for v in m.model_dump().values()]
    return all(math.isfinite(v) for v in values if isinstance(v, float))
