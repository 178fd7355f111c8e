"""Realistic execution of target weights: next-open fills under price limits, suspensions, T+1, lots.

`execute` is the one simulation the strategy lab's backtests and the evaluation's follow-the-verdict
portfolio share. Conventions (the `engine` module docstring's open execution, plus the market rules):

- Decisions and fills. `targets` rows are decision dates of `panel.close`, weights >= 0 summing to
  <= 1 (NaN = 0). A decision on day t trades at the open of t+1 (none on the last day); until the
  first fill the portfolio is cash, NAV 1.0. Holdings are valued at adjusted prices: old holdings
  earn close[t] -> open[t+1], the new ones open[t+1] -> close[t+1] and on.
- Orders. At the open each symbol's target is compared with its weight drifted to that open (of
  the NAV at the open, before costs). A target more than 1e-9 above it is a buy, below it a sell;
  the trade brings the holding to target x NAV at the open.
- Suspension. A symbol with no open or no close on the fill day does not trade: a position is kept
  (valued at its last close), a buy is skipped (`skipped_suspended` counts both).
- Price limits (`rules.price_limits`, where the panel has limit prices). A raw open at or above
  limit-up (within `fills.PRICE_TOLERANCE`) refuses buys: the weight may not rise; at or below
  limit-down it refuses sells: the weight may not fall (`blocked_by_limit`). Refused buys are
  dropped; refused sales, and sales skipped for suspension, stay pending: they go through, down to
  the pending target weight of the NAV then, at the first later open before the next decision's fill
  at which the symbol trades off limit-down (a "retry" trade; a new decision replaces them).
- Cash. Buys are paid from cash and from the sales' proceeds; when these fall short (positions that
  could not be sold, or costs on a fully invested target) every buy is scaled down alike so that
  cash ends at 0. Costs are charged on the money traded: a buy of x costs x x buy_cost[day] on top,
  a sale of x yields x x (1 - sell_cost[day]).
- Lots (`rules.capital` set, the symbol's market in `rules.lot_sizes`). Money = capital x NAV. A
  traded holding becomes whole lots: floor(holding x capital / (raw open x lot)) lots, the rest stays
  in cash (a buy that would round below the current holding does not trade). Dividends reinvest
  through the adjusted prices, so a holding kept across a dividend may hold a fractional lot until
  it next trades.
- Stop-loss. A position whose close falls to <= 1 - stop_loss of its reference (the fill-day mark:
  the open, or the last close of a kept suspended position) is sold at that close, paying the sell
  cost; the money sits in cash until the next fill. It cannot fire on a day without a close, at a
  raw close at or below limit-down (it is retried on the next close, counted in `blocked_by_limit`)
  and, in T+1 markets (`rules.t_plus_one_markets`), on the fill day's close for a position increased
  at that open: shares bought today can be sold tomorrow.
- Statistics. Turnover of a fill is sum |w_after - w_before| / 2 of the NAV at the open (retries
  included, indexed by their day); orders are the (day, symbol) trades plus stop exits; a
  position-period runs from a decision fill to the next decision fill's open (or its stop, a full
  retry sale, or the last close); `trades` lists every trade.

Cost: a Python loop over fill days (decisions and retries) with array arithmetic over symbols and over
the days of each segment, so time grows with the number of rebalances times the symbols, not with
days x rebalances.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from stockdesk.backtest.application.engine import (
    STOP_TOLERANCE,
    WEIGHT_TOLERANCE,
    Simulation,
    check_close,
    check_execution_price,
    check_targets,
)
from stockdesk.backtest.application.fills import PRICE_TOLERANCE
from stockdesk.backtest.application.rules import ExecutionRules
from stockdesk.backtest.application.trades import combine_trades, trades_from_grid
from stockdesk.backtest.application.trading_panel import TradingPanel
from stockdesk.shared.errors import BadRequestException

LOT_EPSILON = 1e-9
"""A holding within this many lots below a whole number of lots counts as that number (float noise)."""


@dataclass(frozen=True, eq=False)
class _Market:
    """The panel as arrays, with the rules applied per (day, symbol)."""

    price: np.ndarray  # adjusted closes, last close carried over
    has_close: np.ndarray
    opens: np.ndarray
    tradable: np.ndarray  # an open and a close that day
    raw_open: np.ndarray
    raw_close: np.ndarray
    up_block: np.ndarray  # raw open at/above limit-up
    down_block: np.ndarray  # raw open at/below limit-down
    stop_block: np.ndarray  # raw close at/below limit-down
    buy: np.ndarray  # rates, dates x symbols
    sell: np.ndarray
    t1: np.ndarray  # per symbol
    lot_money: np.ndarray  # per symbol: shares per lot / capital (0: fractional)
    capital: float | None


@dataclass
class _Book:
    """The portfolio between fills (NAV units: capital = 1.0)."""

    units: np.ndarray  # holding / adjusted price
    cash: float
    ref: np.ndarray  # adjusted price stops and position returns measure from
    since: np.ndarray  # day index of the decision fill each open position-period began at (-1: none)


@dataclass
class _Log:
    """What the fills and segments recorded, turned into the Simulation at the end."""

    nav: np.ndarray
    weights: np.ndarray
    fill_days: list[int]
    fill_reasons: list[str]
    changes: list[np.ndarray]
    prices: list[np.ndarray]
    shares: list[np.ndarray]
    stop_change: np.ndarray
    stop_hits: int = 0
    blocked: int = 0
    skipped: int = 0
    periods: list[tuple[int, int, float]] = field(default_factory=list)  # (fill day, symbol, return)


def execute(
    panel: TradingPanel,
    targets: pd.DataFrame,
    *,
    stop_loss: float | None,
    buy_cost: pd.DataFrame | pd.Series,
    sell_cost: pd.DataFrame | pd.Series,
    rules: ExecutionRules | None = None,
    nan_keeps: bool = False,
) -> Simulation:
    """Run the targets through the market with `rules` (default: `ExecutionRules()`); see the module
    docstring. Costs are dates x symbols frames (`costs.cost_frames`) or per-symbol Series.

    `nan_keeps`: a NaN target is no order for that symbol on that decision (its holding is kept as
    it drifted, and a pending sale is dropped as a new decision drops it); by default NaN is 0. The
    paper book uses it for HOLD verdicts, so a held name is not traded back to a stale weight."""
    rules = rules or ExecutionRules()
    close = panel.close
    check_close(close)
    check_execution_price(close, panel.open)
    target_w = check_targets(close, targets)
    if nan_keeps:
        missing = targets.reindex(index=target_w.index, columns=close.columns).isna().to_numpy()
        target_w = target_w.mask(missing)
    if stop_loss is not None and not 0.0 < stop_loss < 1.0:
        raise BadRequestException(f"stop_loss must be between 0 and 1 (exclusive), got {stop_loss}")
    market = _market(
        panel,
        rules,
        _rates(buy_cost, close, target_w, "buy_cost"),
        _rates(sell_cost, close, target_w, "sell_cost"),
    )
    n, m = close.shape
    decide = close.index.get_indexer(target_w.index) + 1
    keep = decide < n
    fills = dict(zip(decide[keep].tolist(), target_w.to_numpy(dtype="float64")[keep], strict=True))

    log = _Log(
        nav=np.ones(n),
        weights=np.zeros((n, m)),
        fill_days=[],
        fill_reasons=[],
        changes=[],
        prices=[],
        shares=[],
        stop_change=np.zeros((n, m)),
    )
    book = _Book(units=np.zeros(m), cash=1.0, ref=np.ones(m), since=np.full(m, -1))
    pending = np.full(m, np.nan)
    decision_days = sorted(fills)
    day = decision_days[0] if decision_days else n
    while day < n:
        is_decision = day in fills
        want = fills[day] if is_decision else pending
        increased, pending = _fill(market, book, log, day, want, is_decision)
        later = bisect_right(decision_days, day)
        next_decision = decision_days[later] if later < len(decision_days) else n
        end = _retry_day(market, book, pending, day, next_decision)
        _hold(market, book, log, day, end, stop_loss, increased)
        day = end
    for sym in np.flatnonzero(book.units > 0):
        log.periods.append((int(book.since[sym]), int(sym), market.price[n - 1, sym] / book.ref[sym] - 1.0))
    return _simulation(panel, log, market)


def _fill(
    mk: _Market, book: _Book, log: _Log, day: int, want: np.ndarray, decision: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Trade at `day`'s open towards `want` (NaN: no order); returns (increased, pending sales)."""
    tradable = mk.tradable[day]
    mark = np.where(tradable, mk.opens[day], mk.price[day - 1])
    held = book.units > 0
    hold = np.where(held, book.units * np.where(held, mark, 0.0), 0.0)
    nav = book.cash + hold.sum()
    before = hold / nav
    ordered = ~np.isnan(want)
    wish = np.where(ordered, want, before)
    up = ordered & (wish > before + WEIGHT_TOLERANCE) & decision
    down = ordered & (wish < before - WEIGHT_TOLERANCE)
    suspended = (up | down) & ~tradable
    refused_up = up & tradable & mk.up_block[day]
    refused_down = down & tradable & mk.down_block[day]
    moves = (up | down) & tradable & ~refused_up & ~refused_down
    target = np.where(moves, wish * nav, hold)
    lots = moves & (mk.lot_money > 0)
    lot_value = mk.raw_open[day] * mk.lot_money  # NAV units per lot
    if lots.any():
        target = np.where(lots, _whole_lots(target, hold, lot_value, up), target)

    buys = np.clip(target - hold, 0.0, None)
    sells = np.clip(hold - target, 0.0, None)
    available = book.cash + (sells * (1.0 - mk.sell[day])).sum()
    need = (buys * (1.0 + mk.buy[day])).sum()
    if need > 0.0 and need > available:  # (cash can be a rounding error below 0 once fully invested)
        scaled = hold + buys * (max(available, 0.0) / need)
        if lots.any():
            scaled = np.where(lots & (buys > 0), _whole_lots(scaled, hold, lot_value, buys > 0), scaled)
        buys = np.clip(scaled - hold, 0.0, None)
    after = hold + buys - sells
    cost = (buys * mk.buy[day]).sum() + (sells * mk.sell[day]).sum()
    book.cash = book.cash - buys.sum() + sells.sum() - cost
    traded = (buys > 0) | (sells > 0)
    units = np.where(traded, after / np.where(traded, mk.opens[day], 1.0), book.units)
    units = np.where(after > 0, units, 0.0)

    # Position-periods: a decision fill closes every open one at the mark and opens the held ones.
    closing = (held & decision) | (held & ~decision & (after <= 0))
    for sym in np.flatnonzero(closing):
        log.periods.append((int(book.since[sym]), int(sym), mark[sym] / book.ref[sym] - 1.0))
    if decision:
        book.ref = np.where(after > 0, mark, 1.0)
        book.since = np.where(after > 0, day, -1)
    book.units = units

    change = (after - hold) / nav
    if decision or np.abs(change).max(initial=0.0) > WEIGHT_TOLERANCE:
        log.fill_days.append(day)
        log.fill_reasons.append("rebalance" if decision else "retry")
        log.changes.append(change)
        log.prices.append(mk.raw_open[day])
        log.shares.append((after - hold) / np.where(traded, mk.raw_open[day], 1.0) * (mk.capital or np.nan))
    if decision:
        log.blocked += int(refused_up.sum() + refused_down.sum())
        log.skipped += int(suspended.sum())
    pending = np.where((down & ~tradable) | refused_down, wish, np.nan)
    increased = buys > 0
    return increased, pending


def _whole_lots(
    target: np.ndarray, hold: np.ndarray, lot_value: np.ndarray, buying: np.ndarray
) -> np.ndarray:
    """Holdings rounded down to whole lots; a buy that would round below the current holding keeps it."""
    with np.errstate(invalid="ignore", divide="ignore"):
        floored = np.floor(target / lot_value + LOT_EPSILON) * lot_value
    return np.where(buying, np.maximum(floored, hold), np.minimum(floored, hold))


def _retry_day(mk: _Market, book: _Book, pending: np.ndarray, day: int, next_decision: int) -> int:
    """The first open after `day`, before the next decision's fill, at which a pending sale can go."""
    waiting = ~np.isnan(pending) & (book.units > 0)
    if not waiting.any() or day + 1 >= next_decision:
        return next_decision
    window = slice(day + 1, next_decision)
    ready = (mk.tradable[window] & ~mk.down_block[window])[:, waiting].any(axis=1)
    return day + 1 + int(np.argmax(ready)) if ready.any() else next_decision


def _hold(
    mk: _Market,
    book: _Book,
    log: _Log,
    start: int,
    end: int,
    stop_loss: float | None,
    increased: np.ndarray,
) -> None:
    """Value the book over days start..end-1 (closes), firing stops; the book ends as of end-1's close."""
    rows = np.arange(start, end)
    price = mk.price[start:end]
    held = book.units > 0
    value = np.where(held, book.units * np.where(held, price, 0.0), 0.0)
    cash = book.cash
    stop_cash = np.zeros(len(rows))
    if stop_loss is not None and held.any():
        with np.errstate(invalid="ignore", divide="ignore"):
            rel = price / book.ref
        due = held & mk.has_close[start:end] & (rel <= 1.0 - stop_loss + STOP_TOLERANCE)
        due[0] &= ~(increased & mk.t1)  # T+1: today's purchase can be sold tomorrow
        limited = due & mk.stop_block[start:end]
        hit = due & ~limited
        stopped = hit.any(axis=0)
        first = np.argmax(hit, axis=0)
        gone = stopped & (np.arange(len(rows))[:, None] >= first)
        log.blocked += int((limited & ~gone).sum())
        cols = np.flatnonzero(stopped)
        sold = value[first[cols], cols]
        proceeds = sold * (1.0 - mk.sell[start + first[cols], cols])
        stop_cash = (gone[:, cols] * proceeds).sum(axis=1)
        value = np.where(gone, 0.0, value)
        log.stop_hits += len(cols)
        nav_then = cash + value[first[cols]].sum(axis=1) + stop_cash[first[cols]]
        log.stop_change[start + first[cols], cols] = -sold / nav_then
        for col, row in zip(cols, first[cols], strict=True):
            ret = price[row, col] / book.ref[col] - 1.0
            log.periods.append((int(book.since[col]), int(col), ret))
        book.cash = cash + float(proceeds.sum())
        book.units = np.where(stopped, 0.0, book.units)
        book.since = np.where(stopped, -1, book.since)
    nav = cash + value.sum(axis=1) + stop_cash
    log.nav[start:end] = nav
    log.weights[start:end] = value / nav[:, None]


def _simulation(panel: TradingPanel, log: _Log, mk: _Market) -> Simulation:
    close = panel.close
    symbols = close.columns
    days = close.index[log.fill_days]
    m = len(symbols)
    changes = np.vstack(log.changes) if log.changes else np.empty((0, m))
    fills = trades_from_grid(
        days,
        symbols,
        changes,
        np.vstack(log.prices) if log.prices else np.empty((0, m)),
        np.vstack(log.shares) if log.shares else np.empty((0, m)),
        log.fill_reasons,
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        stop_shares = -log.stop_change * log.nav[:, None] * (mk.capital or np.nan) / mk.raw_close
    stops = trades_from_grid(close.index, symbols, log.stop_change, mk.raw_close, stop_shares, "stop")
    nav = pd.Series(log.nav, index=close.index, name="nav")
    periods = sorted(log.periods or [])
    index = pd.MultiIndex.from_arrays(
        [close.index[[p[0] for p in periods]], symbols[[p[1] for p in periods]]], names=["entry", "symbol"]
    )
    decision_count = sum(1 for reason in log.fill_reasons if reason == "rebalance")
    return Simulation(
        nav=nav,
        returns=nav.pct_change().fillna(0.0).rename("returns"),
        weights=pd.DataFrame(log.weights, index=close.index, columns=symbols),
        turnover=pd.Series(np.abs(changes).sum(axis=1) / 2.0, index=days, name="turnover"),
        orders=int((np.abs(changes) > WEIGHT_TOLERANCE).sum()) + log.stop_hits,
        stop_losses=log.stop_hits,
        position_returns=pd.Series(
            [p[2] for p in periods], index=index, name="position_return", dtype="float64"
        ),
        rebalances=decision_count,
        trades=combine_trades(fills, stops),
        blocked_by_limit=log.blocked,
        skipped_suspended=log.skipped,
    )


def _market(panel: TradingPanel, rules: ExecutionRules, buy: np.ndarray, sell: np.ndarray) -> _Market:
    close = panel.close
    opens = panel.open.to_numpy(dtype="float64")
    raw_open = panel.raw_open.to_numpy(dtype="float64")
    raw_close = panel.closes_raw.to_numpy(dtype="float64")
    up = panel.limit_up.to_numpy(dtype="float64")
    down = panel.limit_down.to_numpy(dtype="float64")
    limits = rules.price_limits
    with np.errstate(invalid="ignore"):
        up_block = limits & (raw_open >= up - PRICE_TOLERANCE)
        down_block = limits & (raw_open <= down + PRICE_TOLERANCE)
        stop_block = limits & (raw_close <= down + PRICE_TOLERANCE)
    markets = [panel.markets[s] for s in close.columns]
    lot = np.array([rules.lot_size(market) for market in markets], dtype="float64")
    return _Market(
        price=close.ffill().to_numpy(dtype="float64"),
        has_close=close.notna().to_numpy(),
        opens=opens,
        tradable=close.notna().to_numpy() & ~np.isnan(opens),
        raw_open=raw_open,
        raw_close=raw_close,
        up_block=up_block,
        down_block=down_block,
        stop_block=stop_block,
        buy=buy,
        sell=sell,
        t1=np.array([rules.t_plus_one(market) for market in markets], dtype=bool),
        lot_money=lot / rules.capital if rules.capital else np.zeros(len(markets)),
        capital=rules.capital,
    )


def _rates(
    costs: pd.DataFrame | pd.Series, close: pd.DataFrame, targets: pd.DataFrame, name: str
) -> np.ndarray:
    """Rates as a dates x symbols array; every symbol ever targeted needs one on every day."""
    if isinstance(costs, pd.Series):
        frame = pd.DataFrame(
            np.broadcast_to(costs.reindex(close.columns).to_numpy(dtype="float64"), close.shape),
            index=close.index,
            columns=close.columns,
        )
    else:
        frame = costs.reindex(index=close.index, columns=close.columns).astype("float64")
    values = frame.to_numpy(dtype="float64")
    needed = (targets > 0).any(axis=0).to_numpy()
    lacking = close.columns[needed & np.isnan(values).any(axis=0)]
    if len(lacking):
        raise BadRequestException(f"{name} lacks a rate on some day for targeted symbols {list(lacking[:5])}")
    values = np.nan_to_num(values, nan=0.0)
    if (values < 0).any() or (values >= 1).any():
        raise BadRequestException(f"{name} rates must be fractions in [0, 1)")
    return values
