"""Parameters -> strategy run in the sandbox -> weights -> simulation -> metrics, on one market panel."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pandas as pd

from stockdesk.shared.execution import CostModel, cost_model, cost_rates, equal_weight_benchmark, simulate
from stockdesk.strategy_lab.application.backtest import performance, strategy_metrics
from stockdesk.strategy_lab.application.market_panel import MarketPanel, load_panel
from stockdesk.strategy_lab.domain.dtos import BacktestResult, BacktestWindow, EquityPoint
from stockdesk.strategy_lab.domain.errors import StrategyExecutionError
from stockdesk.strategy_lab.domain.params import CATALYST_COLUMNS, MomentumStrategyParams
from stockdesk.strategy_lab.domain.ports import IStrategyMarketData, IStrategySandbox, IStrategySession


class BacktestService:
    def __init__(
        self,
        market: IStrategyMarketData,
        sandbox: IStrategySandbox,
        costs: dict[str, CostModel] | None = None,
    ):
        self._market = market
        self._sandbox = sandbox
        self._costs = costs

    def panel(self, window: BacktestWindow) -> MarketPanel:
        return load_panel(self._market, window)

    def backtest(self, params: MomentumStrategyParams, window: BacktestWindow) -> BacktestResult:
        """The no-LLM path: score `params` on the window's panel."""
        return self.score(params, self.panel(window))

    def score(self, params: MomentumStrategyParams, panel: MarketPanel) -> BacktestResult:
        """One backtest in a session of its own."""
        with self.session() as session:
            return session.score(params, panel)

    @contextmanager
    def session(self) -> Iterator[BacktestSession]:
        """Backtests sharing one sandbox worker (an autonomous run's iterations)."""
        with self._sandbox.session() as strategies:
            yield BacktestSession(strategies, self._costs)


class BacktestSession:
    def __init__(self, strategies: IStrategySession, costs: dict[str, CostModel] | None):
        self._strategies = strategies
        self._costs = costs

    def score(self, params: MomentumStrategyParams, panel: MarketPanel) -> BacktestResult:
        """Run the strategy rendered for `params` in the sandbox, simulate its weights over the window."""
        weights = self._strategies.weights(params, panel.closes, panel.fundamentals)  # pickled: never mutated
        closes = panel.window_closes
        targets = _targets_in_window(weights, closes)
        buy, sell = cost_rates(panel.markets, self._costs)
        sim = simulate(closes, targets, stop_loss=params.stop_loss, buy_cost=buy, sell_cost=sell)
        benchmark_nav = equal_weight_benchmark(closes)
        metrics = strategy_metrics(sim)
        benchmark = performance(benchmark_nav)
        curve = pd.DataFrame({"strategy": sim.nav, "benchmark": benchmark_nav})
        return BacktestResult(
            params=params,
            universe=panel.universe,
            start=closes.index[0].date(),
            end=closes.index[-1].date(),
            metrics=metrics,
            benchmark=benchmark,
            beat_benchmark=metrics.sharpe > benchmark.sharpe,
            costs={m: cost_model(m, self._costs) for m in sorted(set(panel.markets.values()))},
            equity_curve=[
                EquityPoint(day=day.date(), strategy=round(s, 6), benchmark=round(b, 6))
                for day, s, b in zip(curve.index, curve["strategy"], curve["benchmark"], strict=True)
            ],
            notes=[*panel.notes, *_catalyst_notes(params, panel, metrics.trades)],
        )


def _catalyst_notes(params: MomentumStrategyParams, panel: MarketPanel, trades: int) -> list[str]:
    """Say why a strategy could not trade a symbol, or at all, instead of leaving a silent zero."""
    column = CATALYST_COLUMNS[params.catalyst_type]
    blind = panel.missing_figures[params.catalyst_type]
    notes = []
    if blind:
        notes.append(
            f"no quarterly {column} data, so the {params.catalyst_type} catalyst never passes: "
            f"{', '.join(blind)}"
        )
    if trades == 0:
        notes.append("no trades: no symbol passed the momentum, trend and catalyst filters on any rebalance")
    return notes


def _targets_in_window(weights: object, closes: pd.DataFrame) -> pd.DataFrame:
    """Check what the strategy returned and keep the decisions that fall inside the window."""
    if not isinstance(weights, pd.DataFrame):
        raise StrategyExecutionError(f"the strategy returned {type(weights).__name__}, not a DataFrame")
    unknown = set(weights.columns) - set(closes.columns)
    if unknown:
        raise StrategyExecutionError(f"the strategy returned weights for unknown symbols: {sorted(unknown)}")
    values = weights.to_numpy(dtype=float, na_value=np.nan)
    if not np.isfinite(values).all() or (values < -1e-12).any():
        raise StrategyExecutionError("the strategy returned missing, infinite or negative weights")
    inside = weights.loc[weights.index.isin(closes.index)]
    return inside.reindex(columns=closes.columns, fill_value=0.0).astype(float)


def finite_metrics(result: BacktestResult) -> bool:
    """Whether every reported statistic is a real number (the engine never should, but check)."""
    values = [*result.metrics.model_dump().values(), *result.benchmark.model_dump().values()]
    return all(math.isfinite(v) for v in values if isinstance(v, float))
