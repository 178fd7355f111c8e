"""Small hand-made panels for the execution tests (close, open and rule-bound execution alike), and the
entry points the shared rule tests run through."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from stockdesk.backtest.application import (
    ExecutionRules,
    Simulation,
    TradingPanel,
    execute,
    follow_portfolio,
)

DAYS = pd.bdate_range("2024-01-01", periods=30)
NAN = float("nan")


def frame(**columns: list[float]) -> pd.DataFrame:
    """Dates x symbols from per-symbol lists, on the first len(list) of DAYS."""
    length = len(next(iter(columns.values())))
    return pd.DataFrame(columns, index=DAYS[:length], dtype="float64")


def targets(rows: dict[int, dict[str, float]]) -> pd.DataFrame:
    """Decision-day position -> weights."""
    return pd.DataFrame.from_dict({DAYS[day]: weights for day, weights in rows.items()}, orient="index")


def rates(**values: float) -> pd.Series:
    return pd.Series(values, dtype="float64")


def panel(
    close: pd.DataFrame,
    opens: pd.DataFrame | None = None,
    *,
    raw_open: pd.DataFrame | None = None,
    limit_up: pd.DataFrame | None = None,
    limit_down: pd.DataFrame | None = None,
    markets: dict[str, str] | None = None,
) -> TradingPanel:
    """A panel whose raw prices are the adjusted ones unless given; no limits unless given (a limit
    frame may name only some symbols); every symbol CN unless `markets` says otherwise."""
    opens = close if opens is None else opens
    none = close * np.nan

    def limits(given: pd.DataFrame | None) -> pd.DataFrame:
        return none if given is None else given.reindex_like(close)

    return TradingPanel(
        close=close,
        open=opens,
        raw_open=opens if raw_open is None else raw_open,
        limit_up=limits(limit_up),
        limit_down=limits(limit_down),
        markets={s: "CN" for s in close.columns} | (markets or {}),
    )


def no_lots(**changes: object) -> ExecutionRules:
    """The A-share rules without capital (so without lots), with `changes`."""
    return ExecutionRules(capital=None, **changes)


# --- entry points: every way the desk runs targets through the market ------------------------------

Run = Callable[..., Simulation]
"""(panel, decisions, *, stop_loss, buy_cost, sell_cost, rules) -> Simulation"""


@dataclass(frozen=True)
class EntryPoint:
    name: str
    run: Run
    stops: bool
    """Whether the entry point takes a stop-loss (follow-the-verdict portfolios have none)."""


def _execute(
    panel: TradingPanel,
    decisions: pd.DataFrame,
    *,
    stop_loss: float | None = None,
    buy_cost: pd.DataFrame | pd.Series,
    sell_cost: pd.DataFrame | pd.Series,
    rules: ExecutionRules,
) -> Simulation:
    return execute(panel, decisions, stop_loss=stop_loss, buy_cost=buy_cost, sell_cost=sell_cost, rules=rules)


def _follow_portfolio(
    panel: TradingPanel,
    decisions: pd.DataFrame,
    *,
    stop_loss: float | None = None,
    buy_cost: pd.DataFrame | pd.Series,
    sell_cost: pd.DataFrame | pd.Series,
    rules: ExecutionRules,
) -> Simulation:
    assert stop_loss is None, "the evaluation's portfolio has no stops"
    return follow_portfolio(panel, decisions, buy_cost, sell_cost, rules)


def _strategy_lab(
    panel: TradingPanel,
    decisions: pd.DataFrame,
    *,
    stop_loss: float | None = None,
    buy_cost: pd.DataFrame | pd.Series,
    sell_cost: pd.DataFrame | pd.Series,
    rules: ExecutionRules,
) -> Simulation:
    from stockdesk.strategy_lab.application.backtest_service import simulate_orders

    return simulate_orders(panel, decisions, stop_loss, buy_cost, sell_cost, rules)


ENTRY_POINTS: list[EntryPoint] = [
    EntryPoint("execute", _execute, stops=True),
    EntryPoint("follow_portfolio (evaluation)", _follow_portfolio, stops=False),
    EntryPoint("strategy lab backtest", _strategy_lab, stops=True),
]
"""Add the strategy lab's backtest here and every rule test runs through it too."""
WITH_STOPS = [entry for entry in ENTRY_POINTS if entry.stops]


def entry_id(entry: EntryPoint) -> str:
    return entry.name
