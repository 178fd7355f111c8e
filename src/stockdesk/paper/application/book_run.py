"""One day of a paper book, computed by the one execution module (`backtest.application.execute`).

Rule of the day (what `paper step` and `paper replay` both run, day by day):

1. Point in time. Stepping day D reads bars up to D's close only: the panel is cut at D before
   anything is computed. The orders decided on the trading day before D fill at D's open, so D's
   open is the only price of D an order meets; D's own verdicts become orders that fill when the
   next trading day is stepped.
2. Fills. Every stored order since the book's first day is run again through `execute` (next-open
   fills under price limits, suspensions, T+1 and lots, with the dated cost schedule plus
   SLIPPAGE): the simulation is causal, so the days already stored come out the same, and D's
   trades and close are the new part. A HOLD (or no verdict) is no order (`nan_keeps`): the
   holding is left as it drifted.
3. Mark to market at D's close: equity = the simulation's NAV x the capital; cash = equity - the
   positions' value; the benchmark's level at D's close.
4. Orders of D, from D's verdicts and what the book holds at D's close (`sizing.orders_for`).
5. Not filled. An order of the day before D that did not trade at D's open is recorded with its
   reason: suspended (no bar), limit-up at the open (a buy), limit-down at the open (a sale; the
   module retries it at the next open it can), else less than one lot or no cash left (a buy).

Quantities are shares (whole lots of 100 for A-shares); a trade's price is the raw open; its costs
are the rate the module charged that day times the money traded. Holdings are valued at adjusted
prices, so a dividend is reinvested in the value while the share count stays as traded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np
import pandas as pd

from stockdesk.backtest.application import ExecutionRules, TradingPanel, cost_frames, execute
from stockdesk.paper.application.sizing import orders_for
from stockdesk.paper.domain.models import (
    DayOrder,
    DayResult,
    DayVerdict,
    PaperBook,
    PaperMark,
    PaperPosition,
    PaperTrade,
)

SLIPPAGE = 0.0005
"""Per side, as the evaluation's follow-the-verdict portfolio (EvaluationConfig.slippage)."""
PRICE_TOLERANCE = 1e-6
WEIGHT_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Market:
    """The book's universe over the days loaded: the panel and the benchmark's close levels."""

    panel: TradingPanel
    benchmark: pd.Series


def step_day(
    book: PaperBook,
    market: Market,
    day: date,
    first_day: date,
    orders: Sequence[DayOrder],
    earlier_trades: Sequence[PaperTrade],
    verdicts: Sequence[DayVerdict],
) -> DayResult:
    """Day `day` of `book` (see the module docstring); `orders`: every stored order before `day`."""
    panel = market.panel.between(first_day, day)  # nothing after D exists from here on
    stamp = pd.Timestamp(day)
    if stamp not in panel.close.index:
        raise ValueError(f"{day} is not a trading day of the book's universe")
    rules = ExecutionRules(capital=book.capital)
    buy, sell = cost_frames(panel, slippage=SLIPPAGE)
    targets = _targets(orders, panel)
    sim = execute(panel, targets, stop_loss=None, buy_cost=buy, sell_cost=sell, rules=rules, nan_keeps=True)
    equity = float(sim.nav.loc[stamp]) * book.capital
    weights = sim.weights.loc[stamp]
    trades = _trades_of_day(sim.trades, stamp, buy, sell)
    trades += _not_filled(panel, sim.weights, orders, stamp, trades)
    held = {str(s) for s, w in weights.items() if w > WEIGHT_TOLERANCE}
    positions = _positions([*earlier_trades, *trades], weights, equity, panel, stamp)
    value = float(sum(p.value for p in positions))
    level = market.benchmark.get(stamp)
    mark = PaperMark(
        day=day,
        cash=round(equity - value, 2),
        positions_value=round(value, 2),
        equity=round(equity, 2),
        benchmark=None if level is None or pd.isna(level) else round(float(level), 6),
    )
    todays = orders_for(book, day, verdicts, held)
    return DayResult(
        day=day, verdicts=list(verdicts), orders=todays, trades=trades, mark=mark, positions=positions
    )


def _targets(orders: Sequence[DayOrder], panel: TradingPanel) -> pd.DataFrame:
    """Decision days x symbols: the orders' target weights, NaN where a symbol has no order."""
    known = set(panel.close.columns)
    rows = [(pd.Timestamp(o.day), o.symbol, o.target_weight) for o in orders if o.symbol in known]
    if not rows:
        return pd.DataFrame(index=pd.DatetimeIndex([]), columns=panel.close.columns, dtype="float64")
    frame = pd.DataFrame(rows, columns=["day", "symbol", "weight"])
    wide = frame.pivot(index="day", columns="symbol", values="weight")
    return wide.reindex(columns=panel.close.columns)


def _trades_of_day(
    table: pd.DataFrame, stamp: pd.Timestamp, buy: pd.DataFrame, sell: pd.DataFrame
) -> list[PaperTrade]:
    today = table.loc[pd.DatetimeIndex(table["date"]) == stamp] if len(table) else table
    out = []
    for row in today.itertuples(index=False):
        quantity = abs(float(row.shares))
        rate = float((buy if row.side == "BUY" else sell).at[stamp, row.symbol])
        quantity = round(quantity) if abs(quantity - round(quantity)) < 1e-6 else round(quantity, 6)
        out.append(
            PaperTrade(
                day=stamp.date(), symbol=str(row.symbol), side=str(row.side), quantity=float(quantity),
                price=round(float(row.price), 4), costs=round(quantity * float(row.price) * rate, 2),
                reason="order" if row.reason == "rebalance" else str(row.reason),
            )
        )  # fmt: skip
    return out


def _not_filled(
    panel: TradingPanel,
    weights: pd.DataFrame,
    orders: Sequence[DayOrder],
    stamp: pd.Timestamp,
    done: Sequence[PaperTrade],
) -> list[PaperTrade]:
    """The orders of the trading day before `stamp` that did not trade at its open, with the reason."""
    index = panel.close.index
    at = index.get_loc(stamp)
    if at == 0:
        return []
    decided = index[at - 1].date()
    traded = {(t.symbol, t.side) for t in done}
    out = []
    for order in orders:
        if order.day != decided:
            continue
        before = float(weights.at[index[at - 1], order.symbol]) if order.symbol in weights.columns else 0.0
        if abs(order.target_weight - before) <= WEIGHT_TOLERANCE:
            continue
        side = "BUY" if order.target_weight > before else "SELL"
        if (order.symbol, side) in traded:
            continue
        out.append(
            PaperTrade(
                day=stamp.date(), symbol=order.symbol, side=side, quantity=0.0,
                price=_open(panel, stamp, order.symbol), costs=0.0,
                reason=_why(panel, stamp, order.symbol, side), filled=False,
            )
        )  # fmt: skip
    return out


def _open(panel: TradingPanel, stamp: pd.Timestamp, symbol: str) -> float | None:
    if symbol not in panel.raw_open.columns:
        return None
    value = panel.raw_open.at[stamp, symbol]
    return None if pd.isna(value) else round(float(value), 4)


def _why(panel: TradingPanel, stamp: pd.Timestamp, symbol: str, side: str) -> str:
    if symbol not in panel.close.columns:
        return "suspended: no bar"
    raw_open = panel.raw_open.at[stamp, symbol]
    if pd.isna(raw_open) or pd.isna(panel.close.at[stamp, symbol]):
        return "suspended: no bar"
    if side == "BUY" and raw_open >= panel.limit_up.at[stamp, symbol] - PRICE_TOLERANCE:
        return "limit-up at the open"
    if side == "SELL" and raw_open <= panel.limit_down.at[stamp, symbol] + PRICE_TOLERANCE:
        return "limit-down at the open: retried at the next open it can"
    return "less than one lot, or no cash left"


def _positions(
    trades: Sequence[PaperTrade], weights: pd.Series, equity: float, panel: TradingPanel, stamp: pd.Timestamp
) -> list[PaperPosition]:
    """Holdings from the filled trades (quantity, average cost with costs, last buy day), valued at
    the simulation's weights of `stamp`'s close."""
    book: dict[str, dict[str, float | date]] = {}
    for trade in (t for t in trades if t.filled):
        held = book.setdefault(trade.symbol, {"quantity": 0.0, "spent": 0.0, "bought_on": trade.day})
        quantity = float(held["quantity"])  # type: ignore[arg-type]
        spent = float(held["spent"])  # type: ignore[arg-type]
        if trade.side == "BUY":
            held["quantity"] = quantity + trade.quantity
            held["spent"] = spent + trade.quantity * float(trade.price or 0.0) + trade.costs
            held["bought_on"] = trade.day
        else:
            left = max(quantity - trade.quantity, 0.0)
            held["spent"] = spent * (left / quantity) if quantity > 0 else 0.0
            held["quantity"] = left
    out = []
    for symbol, held in sorted(book.items()):
        quantity = float(held["quantity"])  # type: ignore[arg-type]
        if quantity <= 1e-9:
            continue
        close = panel.closes_raw.at[stamp, symbol] if symbol in panel.close.columns else np.nan
        weight = float(weights.get(symbol, 0.0))
        out.append(
            PaperPosition(
                symbol=symbol, quantity=quantity, cost=round(float(held["spent"]) / quantity, 4),  # type: ignore[arg-type]
                bought_on=held["bought_on"],  # type: ignore[arg-type]
                price=None if pd.isna(close) else round(float(close), 4), value=round(weight * equity, 2),
            )
        )  # fmt: skip
    return out
