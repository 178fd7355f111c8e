"""Vectorised daily backtest: target weights in, NAV and trade statistics out.

This is the frictionless simulation (no price limits, T+1 or lots; a suspended holding is sold at
its last close). `orders.execute` is the realistic one the strategy lab and evaluation run: the
same open execution plus the market rules, with costs charged on the money traded instead of as a
fraction of the NAV, so with costs the two differ in the second order. `simulate` does not delegate
to `execute`; with zero costs and no suspensions they agree (tests/shared/test_execution_orders.py).

What users should know about the simulation:

- Prices. `close` is dates x symbols of adjusted closes, NaN where a symbol did not trade. A missing
  day is a 0 % return (the last close carries over); a symbol has no price before its first close
  and cannot be bought then. A symbol that stops trading keeps its last close.
- Decisions and execution. `targets` rows are DECISION dates (each in `close.index`), columns are
  symbols, values are weights >= 0 summing to <= 1; the rest is cash earning 0. NaN counts as 0.
  A decision taken with the close of day t is executed at the close of the next trading day t+1,
  so signals never trade on the close they were computed from. A decision on the last day is not
  executed. A target naming a symbol with no close on the execution day goes to cash (a position
  held in a symbol suspended that day is therefore sold at its last close: a simplification).
  Before the first execution the portfolio is all cash (NAV 1.0).
- Open execution (`execution_price` given: dates x symbols of adjusted opens, same index and
  columns as `close`). A decision on day t is executed at the open of t+1 instead: the old holdings
  earn close[t] -> open[t+1], the portfolio trades at the open (costs as below, against the weights
  drifted to the open), and the new holdings earn open[t+1] -> close[t+1] on the execution day
  itself, so a segment runs from an execution day's open to the next execution day's open. A symbol
  can be bought on the execution day only when it has both an open and a close that day, otherwise
  its target goes to cash; an old position in a symbol with no open that day is valued (and sold)
  at its last close. Stops (below) measure the close against the execution open and apply from the
  execution day's own close. Without `execution_price` nothing here applies and results are exactly
  those of close execution.
- Holding. Between executions the positions drift with prices (buy and hold, no daily
  rebalancing). With close execution a segment starts after the close of an execution day and ends
  at the close of the next one: that day's return still belongs to the old holdings, then the
  portfolio trades.
- Stop-loss. Within a segment a position whose close relative to its entry close falls to
  <= 1 - stop_loss is sold at that day's close; its value then sits in cash until the next
  execution. The entry close is the execution-day close even for a position carried over from the
  previous segment, so the stop measures the loss since the last rebalance, not since first purchase.
  `stop_loss=None` disables stops.
- Costs. At each execution the new targets are compared with the drifted old weights (stopped
  positions are already 0); buy_cost[s] * increase + sell_cost[s] * decrease is charged as a
  fraction of the NAV, and the targets then apply to the NAV after costs. A stop exit pays the
  sell cost on the value sold, once.
- Statistics. Turnover of an execution is sum |w_new - w_old| / 2 (one-way); orders count the
  (execution day, symbol) pairs whose weight changed by more than 1e-9, plus stop exits; a
  position-period is one symbol held with weight > 0 over one segment, its return measured at the
  segment's end (with open execution: at the next execution's open) or at its stop (the last
  segment is marked at the last close).

Everything is array arithmetic over days x symbols; the only grouping is by segment id (number of
execution days strictly before a day; with open execution up to and including it), so cost does not
grow with the number of rebalances.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from stockdesk.backtest.application.trades import combine_trades, empty_trades, trades_from_grid
from stockdesk.shared.errors import BadRequestException

WEIGHT_TOLERANCE = 1e-9
"""Row sums up to 1 + this pass; weight changes up to this are not orders."""
STOP_TOLERANCE = 1e-12
"""A price relative within this of the stop level counts as a hit (float rounding of the ratio)."""


@dataclass(frozen=True, eq=False)
class Simulation:
    """What one backtest produced; series are indexed by `close.index` unless said otherwise."""

    nav: pd.Series
    """Net asset value after the day's trading, 1.0 on the first day."""
    returns: pd.Series
    """Daily returns of `nav` (0.0 on the first day)."""
    weights: pd.DataFrame
    """End-of-day weights actually held (after trading and stops), dates x symbols."""
    turnover: pd.Series
    """One-way turnover of each execution, indexed by execution date."""
    orders: int
    stop_losses: int
    position_returns: pd.Series
    """Return of each position-period, indexed by (entry execution date, symbol)."""
    rebalances: int
    """Number of execution days (of decisions: `execute`'s retries of refused sales do not count)."""
    trades: pd.DataFrame = field(default_factory=empty_trades)
    """Every trade, one row each (columns in `trades.TRADE_COLUMNS`)."""
    blocked_by_limit: int = 0
    """Orders refused by a price limit: buys at limit-up and sells at limit-down opens of decision
    executions, plus each close on which a due stop-loss could not sell at limit-down (`execute`)."""
    skipped_suspended: int = 0
    """Orders of decision executions not placed because the symbol did not trade that day (`execute`)."""


def simulate(
    close: pd.DataFrame,
    targets: pd.DataFrame,
    *,
    stop_loss: float | None,
    buy_cost: pd.Series,
    sell_cost: pd.Series,
    execution_price: pd.DataFrame | None = None,
) -> Simulation:
    """Run the targets over the closes with stop-losses and costs (see the module docstring).

    `execution_price` (adjusted opens shaped like `close`) switches from close to open execution;
    `stop_loss=None` runs without stops.
    """
    check_close(close)
    target_w = check_targets(close, targets)
    if stop_loss is not None and not 0.0 < stop_loss < 1.0:
        raise BadRequestException(f"stop_loss must be between 0 and 1 (exclusive), got {stop_loss}")
    buy = _cost_array(buy_cost, close.columns, target_w, "buy_cost")
    sell = _cost_array(sell_cost, close.columns, target_w, "sell_cost")
    if execution_price is not None:
        check_execution_price(close, execution_price)
        return _simulate_at_open(close, execution_price, target_w, stop_loss, buy, sell)

    dates = close.index
    n, m = close.shape
    price = close.ffill().to_numpy(dtype="float64")
    traded = close.notna().to_numpy()

    # Executions: the trading day after each decision; the last day's decision never executes.
    exec_pos = dates.get_indexer(target_w.index) + 1
    keep = exec_pos < n
    exec_pos = exec_pos[keep]
    new_w = target_w.to_numpy(dtype="float64")[keep]
    new_w = np.where(traded[exec_pos], new_w, 0.0)  # no close on the execution day: stays cash

    is_exec = np.zeros(n, dtype=bool)
    is_exec[exec_pos] = True
    seg = np.concatenate([[0], np.cumsum(is_exec)[:-1]])  # execution days strictly before each day
    seg_start = np.concatenate([[True], seg[1:] != seg[:-1]])
    seg_end = np.concatenate([seg[1:] != seg[:-1], [True]])

    # Segment k >= 1 holds the weights of execution k, priced relative to that execution's close.
    w = np.vstack([np.zeros((1, m)), new_w])[seg]
    entry = price[np.concatenate([[0], exec_pos])[seg]]
    held = w > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = np.where(held, price / entry, 1.0)

    stopped, first_hit, rel_eff = _stops(rel, held, seg, seg_start, stop_loss)

    # Growth of a segment's starting NAV: cash + open positions + stop proceeds net of sell cost.
    invested = np.where(stopped, 0.0, w * rel_eff)
    stop_cash = np.where(stopped, w * rel_eff * (1.0 - sell), 0.0)
    growth = (1.0 - w.sum(axis=1)) + invested.sum(axis=1) + stop_cash.sum(axis=1)

    # Trading at each execution, against the weights drifted to that close.
    g_exec = growth[exec_pos]
    old_w = invested[exec_pos] / np.where(g_exec > 0, g_exec, 1.0)[:, None]
    delta = new_w - old_w
    cost = (np.clip(delta, 0.0, None) * buy + np.clip(-delta, 0.0, None) * sell).sum(axis=1)
    nav_start = np.concatenate([[1.0], np.cumprod(g_exec * (1.0 - cost))])
    nav = nav_start[seg] * growth
    nav[exec_pos] = nav_start[1:]

    end_w = invested / growth[:, None]
    end_w[exec_pos] = new_w

    exec_dates = dates[exec_pos]
    positions = _position_returns(rel_eff, w, seg, seg_end, exec_dates, close.columns)
    stop_w = w * rel_eff / growth[:, None]
    trades = _trades(close, exec_dates, delta, price[exec_pos], first_hit, stop_w, price)
    return _simulation(close, nav, end_w, delta, first_hit, exec_dates, positions, trades)


def _simulate_at_open(
    close: pd.DataFrame,
    execution_price: pd.DataFrame,
    target_w: pd.DataFrame,
    stop_loss: float | None,
    buy: np.ndarray,
    sell: np.ndarray,
) -> Simulation:
    """Open execution (see the module docstring): segments run from one execution open to the next."""
    dates = close.index
    n, m = close.shape
    price = close.ffill().to_numpy(dtype="float64")
    opens = execution_price.to_numpy(dtype="float64")
    tradable = close.notna().to_numpy() & ~np.isnan(opens)

    exec_pos = dates.get_indexer(target_w.index) + 1
    keep = exec_pos < n
    exec_pos = exec_pos[keep]
    new_w = target_w.to_numpy(dtype="float64")[keep]
    new_w = np.where(tradable[exec_pos], new_w, 0.0)  # no open or close on the execution day: cash
    k_exec = len(exec_pos)

    is_exec = np.zeros(n, dtype=bool)
    is_exec[exec_pos] = True
    seg = np.cumsum(is_exec)  # execution days up to and including each day: a segment opens at one
    seg_start = np.concatenate([[True], seg[1:] != seg[:-1]])

    # Segment k >= 1 holds the weights of execution k, priced relative to that execution's open.
    w = np.vstack([np.zeros((1, m)), new_w])[seg]
    entry_rows = np.vstack([np.ones((1, m)), np.where(new_w > 0, opens[exec_pos], 1.0)])
    entry = entry_rows[seg]
    held = w > 0
    rel = np.where(held, price / entry, 1.0)

    stopped, first_hit, rel_eff = _stops(rel, held, seg, seg_start, stop_loss)
    invested = np.where(stopped, 0.0, w * rel_eff)
    stop_cash = np.where(stopped, w * rel_eff * (1.0 - sell), 0.0)
    growth = (1.0 - w.sum(axis=1)) + invested.sum(axis=1) + stop_cash.sum(axis=1)

    # The old segment marked at each execution's open (its state as of the previous day's close);
    # a symbol with no open that day is marked at its last close.
    prev = exec_pos - 1
    old_hold = w[prev]
    mark = np.where(np.isnan(opens[exec_pos]), price[prev], opens[exec_pos])
    rel_open = np.where(old_hold > 0, mark / entry[prev], 1.0)
    rel_open = np.where(stopped[prev], rel_eff[prev], rel_open)
    invested_open = np.where(stopped[prev], 0.0, old_hold * rel_open)
    g_open = (1.0 - old_hold.sum(axis=1)) + invested_open.sum(axis=1) + stop_cash[prev].sum(axis=1)

    old_w = invested_open / np.where(g_open > 0, g_open, 1.0)[:, None]
    delta = new_w - old_w
    cost = (np.clip(delta, 0.0, None) * buy + np.clip(-delta, 0.0, None) * sell).sum(axis=1)
    nav_start = np.concatenate([[1.0], np.cumprod(g_open * (1.0 - cost))])
    nav = nav_start[seg] * growth
    end_w = invested / growth[:, None]

    # Each segment's positions end at the next execution's open, the last one at the last close.
    exit_rel = np.vstack([rel_open[1:], rel_eff[-1:]]) if k_exec else np.empty((0, m))
    exec_dates = dates[exec_pos]
    positions = _segment_returns(exit_rel, new_w, exec_dates, close.columns)
    stop_w = w * rel_eff / growth[:, None]
    trades = _trades(close, exec_dates, delta, mark, first_hit, stop_w, price)
    return _simulation(close, nav, end_w, delta, first_hit, exec_dates, positions, trades)


def _simulation(
    close: pd.DataFrame,
    nav: np.ndarray,
    end_w: np.ndarray,
    delta: np.ndarray,
    first_hit: np.ndarray,
    exec_dates: pd.Index,
    positions: pd.Series,
    trades: pd.DataFrame,
) -> Simulation:
    """The result both execution paths report, from their arrays."""
    nav_s = pd.Series(nav, index=close.index, name="nav")
    return Simulation(
        nav=nav_s,
        returns=nav_s.pct_change().fillna(0.0).rename("returns"),
        weights=pd.DataFrame(end_w, index=close.index, columns=close.columns),
        turnover=pd.Series(np.abs(delta).sum(axis=1) / 2.0, index=exec_dates, name="turnover"),
        orders=int((np.abs(delta) > WEIGHT_TOLERANCE).sum() + first_hit.sum()),
        stop_losses=int(first_hit.sum()),
        position_returns=positions,
        rebalances=len(exec_dates),
        trades=trades,
    )


def _trades(
    close: pd.DataFrame,
    exec_dates: pd.Index,
    delta: np.ndarray,
    exec_price: np.ndarray,
    first_hit: np.ndarray,
    stop_weight: np.ndarray,
    price: np.ndarray,
) -> pd.DataFrame:
    """`simulate`'s trades: its executions at their (adjusted) fill prices and its stop exits."""
    rebalances = trades_from_grid(exec_dates, close.columns, delta, exec_price, None, "rebalance")
    stops = trades_from_grid(
        close.index, close.columns, np.where(first_hit, -stop_weight, 0.0), price, None, "stop"
    )
    return combine_trades(rebalances, stops)


def _stops(
    rel: np.ndarray, held: np.ndarray, seg: np.ndarray, seg_start: np.ndarray, stop_loss: float | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(stopped, first_hit, rel_eff): once hit, a position stays out for the rest of its segment at
    its hit-day value. No stop level: nothing is ever stopped."""
    if stop_loss is None:
        none = np.zeros(rel.shape, dtype=bool)
        return none, none, rel
    m = rel.shape[1]
    hit = held & (rel <= 1.0 - stop_loss + STOP_TOLERANCE)
    stopped = pd.DataFrame(hit).groupby(seg).cummax().to_numpy(dtype=bool)
    before = np.vstack([np.zeros((1, m), dtype=bool), stopped[:-1]]) & ~seg_start[:, None]
    first_hit = stopped & ~before
    rel_at_stop = pd.DataFrame(np.where(first_hit, rel, np.nan)).groupby(seg).ffill().to_numpy()
    return stopped, first_hit, np.where(stopped, rel_at_stop, rel)


def equal_weight_benchmark(close: pd.DataFrame) -> pd.Series:
    """NAV of the equal-weight universe, 1.0 on the first day, costless.

    Each day earns the mean daily return of the symbols that have a close that day and the day
    before (a day with none earns 0), i.e. the universe is rebalanced to equal weights every day.
    """
    check_close(close)
    daily = close / close.shift(1) - 1.0  # NaN unless both closes exist
    mean = daily.mean(axis=1, skipna=True).fillna(0.0)
    return (1.0 + mean).cumprod().rename("benchmark")


def _position_returns(
    rel_eff: np.ndarray,
    w: np.ndarray,
    seg: np.ndarray,
    seg_end: np.ndarray,
    exec_dates: pd.Index,
    symbols: pd.Index,
) -> pd.Series:
    """Price relative - 1 at each segment's last day (frozen at a stop) for every position held."""
    rows = np.flatnonzero(seg_end & (seg > 0))
    seg_ids = np.repeat(seg[rows], len(symbols))
    sym_idx = np.tile(np.arange(len(symbols)), len(rows))
    values = (rel_eff[rows] - 1.0).ravel()
    mask = (w[rows] > 0).ravel()
    index = pd.MultiIndex.from_arrays(
        [exec_dates[seg_ids[mask] - 1], symbols[sym_idx[mask]]], names=["entry", "symbol"]
    )
    return pd.Series(values[mask], index=index, name="position_return", dtype="float64")


def _segment_returns(
    exit_rel: np.ndarray, weights: np.ndarray, exec_dates: pd.Index, symbols: pd.Index
) -> pd.Series:
    """Price relative - 1 at each segment's exit (rows: executions) for every position held."""
    rows, cols = np.nonzero(weights > 0)
    index = pd.MultiIndex.from_arrays([exec_dates[rows], symbols[cols]], names=["entry", "symbol"])
    return pd.Series(exit_rel[rows, cols] - 1.0, index=index, name="position_return", dtype="float64")


def check_close(close: pd.DataFrame) -> None:
    if close.empty:
        raise BadRequestException("close has no rows or no symbols")
    if not close.index.is_unique or not close.index.is_monotonic_increasing:
        raise BadRequestException("close must be indexed by unique dates in increasing order")
    if not close.columns.is_unique:
        raise BadRequestException("close has duplicate symbol columns")
    values = close.to_numpy(dtype="float64")
    present = values[~np.isnan(values)]
    if (present <= 0).any() or not np.isfinite(present).all():
        raise BadRequestException("close prices must be positive and finite (NaN marks a missing day)")


def check_execution_price(close: pd.DataFrame, execution_price: pd.DataFrame) -> None:
    if not execution_price.index.equals(close.index) or not execution_price.columns.equals(close.columns):
        raise BadRequestException("execution_price must have the same dates and symbols as close")
    values = execution_price.to_numpy(dtype="float64")
    present = values[~np.isnan(values)]
    if (present <= 0).any() or not np.isfinite(present).all():
        raise BadRequestException("execution prices must be positive and finite (NaN marks no trade)")


def check_targets(close: pd.DataFrame, targets: pd.DataFrame) -> pd.DataFrame:
    """Targets aligned to close's columns, sorted by decision date, NaN as 0."""
    if not targets.index.is_unique:
        raise BadRequestException("targets has duplicate decision dates")
    missing_dates = targets.index.difference(close.index)
    if len(missing_dates):
        raise BadRequestException(f"targets has decision dates not in close: {list(missing_dates[:3])}")
    unknown = targets.columns.difference(close.columns)
    if len(unknown):
        raise BadRequestException(f"targets names symbols not in close: {list(unknown[:5])}")
    aligned = targets.reindex(columns=close.columns).astype("float64").fillna(0.0).sort_index()
    values = aligned.to_numpy()
    if not np.isfinite(values).all():
        raise BadRequestException("target weights must be finite")
    if (values < 0).any():
        raise BadRequestException("target weights must be >= 0 (no short selling)")
    sums = values.sum(axis=1)
    if (sums > 1.0 + WEIGHT_TOLERANCE).any():
        day = aligned.index[int(np.argmax(sums))]
        raise BadRequestException(f"target weights sum to {sums.max():.6g} > 1 on {day}")
    return aligned


def _cost_array(costs: pd.Series, symbols: pd.Index, targets: pd.DataFrame, name: str) -> np.ndarray:
    """Per-symbol cost rates in column order; every symbol ever targeted must have one."""
    rates = costs.reindex(symbols).astype("float64")
    needed = (targets > 0).any(axis=0).to_numpy()
    lacking = symbols[needed & rates.isna().to_numpy()]
    if len(lacking):
        raise BadRequestException(f"{name} has no rate for targeted symbols: {list(lacking[:5])}")
    values = rates.fillna(0.0).to_numpy()
    if (values < 0).any() or (values >= 1).any():
        raise BadRequestException(f"{name} rates must be fractions in [0, 1)")
    return values
