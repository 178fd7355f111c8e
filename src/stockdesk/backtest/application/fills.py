"""Fills and forward returns of dated verdicts, and an equal-weight index over the same windows.

Input bars are a long frame, one row per (symbol, trade_date), with raw prices: `symbol`,
`trade_date`, `open`, `close`, `volume`, and optionally `pre_close` and `adj_factor` (a missing
column counts as all NaN). Conventions:

- Trading days. A symbol trades on a day when it has a bar there with volume > 0 and a positive
  open and close. A missing bar, volume 0 or NaN is a suspension: that day is skipped, for the
  symbol's entry and for counting horizons alike.
- Adjustment. adjusted price = raw price x that day's adj_factor; a NaN factor takes the symbol's
  previous factor (forward fill over all its bars, suspended ones included), and 1.0 where there is
  none yet. Returns over a window use adjusted prices, so dividends and splits inside it are not
  losses; fills compare raw prices, as the exchange does.
- Entry. A verdict dated `as_of` (its calendar date; any time of day is ignored) enters on the
  symbol's first trading day strictly after it (`entry_date`), at that day's raw open
  (`entry_price`); `entry_adj_open` is the open x that day's factor. No such day in the bars:
  entry_date NaT, entry_price NaN, not filled.
- Fill. A BUY whose entry open is at or above the limit-up price is not filled, nor a SELL at or
  below limit-down (a one-price limit open leaves no counterparty: the simplest fill rule). Limits
  come from the entry day's `pre_close`, or the symbol's previous trading close when that is
  missing (see `limits`); a symbol without a limit, or without any previous close, always fills.
  A HOLD places no order and counts as filled.
- Forward return at horizon h: adjusted close of the h-th trading day counting the entry day as
  day 1, over the adjusted entry open, minus 1; `exit_<h>` is that h-th day. NaN / NaT when the bars
  end first. It is the verdict's return whether or not it filled (the caller decides what an
  unfilled order earns).

Everything runs over all verdicts at once: one sorted search of the bars by (symbol, date) finds
each entry, and a horizon is the entry row plus h - 1 in the symbol's run of trading rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date

import numpy as np
import pandas as pd

from stockdesk.backtest.application.limits import limit_price_arrays
from stockdesk.shared.errors import BadRequestException

BAR_COLUMNS = ("symbol", "trade_date", "open", "close", "volume")
OPTIONAL_BAR_COLUMNS = ("pre_close", "adj_factor")
POINT_COLUMNS = ("symbol", "as_of", "action")
ACTIONS = frozenset({"BUY", "SELL", "HOLD"})
PRICE_TOLERANCE = 1e-6
"""An open within this (CNY, far below the 0.01 tick) of a limit price is at the limit."""

LimitSource = Mapping[str, float | None] | Callable[[str, date], float | None]
"""Per-symbol limit fraction (None / absent: no limit), or (symbol, trade_date) -> fraction."""

_DAY_SPAN = np.int64(1 << 32)
_DAY_OFFSET = np.int64(1 << 31)


def trading_bars(bars: pd.DataFrame) -> pd.DataFrame:
    """The rows where a symbol traded, sorted by symbol and date, with adjusted prices.

    Columns: symbol, trade_date (Timestamp), open, close, adj_factor, adj_open, adj_close and
    ref_close (the limit reference: pre_close, else the previous trading day's raw close).
    """
    missing = [name for name in BAR_COLUMNS if name not in bars.columns]
    if missing:
        raise BadRequestException(f"bars lack columns {missing}")
    frame = pd.DataFrame(
        {
            "symbol": bars["symbol"].astype(str).to_numpy(),
            "trade_date": pd.to_datetime(bars["trade_date"]).to_numpy(),
            **{
                name: pd.to_numeric(bars[name], errors="coerce").to_numpy(dtype="float64")
                if name in bars.columns
                else np.full(len(bars), np.nan)
                for name in ("open", "close", "volume", *OPTIONAL_BAR_COLUMNS)
            },
        }
    )
    if frame["trade_date"].isna().any():
        raise BadRequestException("bars have rows without a trade_date")
    frame = frame.sort_values(["symbol", "trade_date"], kind="stable", ignore_index=True)
    if frame.duplicated(["symbol", "trade_date"]).any():
        raise BadRequestException("bars have more than one row for a (symbol, trade_date)")
    factor = frame.groupby("symbol", sort=False)["adj_factor"].ffill().fillna(1.0)
    frame["adj_factor"] = factor.where(factor > 0, 1.0)
    traded = (frame["volume"] > 0) & (frame["open"] > 0) & (frame["close"] > 0)
    frame = frame.loc[traded].reset_index(drop=True)
    previous = frame.groupby("symbol", sort=False)["close"].shift(1)
    frame["ref_close"] = frame["pre_close"].where(frame["pre_close"] > 0, previous)
    frame["adj_open"] = frame["open"] * frame["adj_factor"]
    frame["adj_close"] = frame["close"] * frame["adj_factor"]
    return frame[
        ["symbol", "trade_date", "open", "close", "adj_factor", "adj_open", "adj_close", "ref_close"]
    ]


def fills_and_returns(
    bars: pd.DataFrame,
    points: pd.DataFrame,
    horizons: Sequence[int],
    limits: LimitSource | None = None,
) -> pd.DataFrame:
    """Entry, fill and forward returns of each verdict (see the module docstring).

    `points` has columns symbol, as_of and action (BUY/SELL/HOLD, any case). The result is indexed
    like `points`, with columns entry_date, entry_price, entry_adj_open, limit_up, limit_down (NaN
    without a limit), filled, and per horizon h: fwd_<h> and exit_<h>.
    """
    steps = _check_horizons(horizons)
    missing = [name for name in POINT_COLUMNS if name not in points.columns]
    if missing:
        raise BadRequestException(f"points lack columns {missing}")
    action = points["action"].astype(str).str.strip().str.upper().to_numpy()
    unknown = sorted(set(action) - ACTIONS)
    if unknown:
        raise BadRequestException(f"points have unknown actions {unknown[:5]}; expected BUY, SELL or HOLD")
    as_of = pd.to_datetime(points["as_of"])
    if as_of.isna().any():
        raise BadRequestException("points have rows without an as_of date")

    bars_t = trading_bars(bars)
    n_bars = len(bars_t)
    symbols = pd.Index(bars_t["symbol"].unique())  # sorted: bars_t is sorted by symbol
    bar_code = symbols.get_indexer(bars_t["symbol"]).astype("int64")
    bar_key = bar_code * _DAY_SPAN + _days(bars_t["trade_date"]) + _DAY_OFFSET
    point_symbol = points["symbol"].astype(str).to_numpy()
    point_code = symbols.get_indexer(point_symbol).astype("int64")
    point_key = point_code * _DAY_SPAN + _days(as_of) + _DAY_OFFSET

    # Row n_bars is a padding row (no symbol, NaN prices) that every "no such day" points at.
    entry = np.searchsorted(bar_key, point_key, side="right")  # first row after (symbol, as_of)
    run_end = np.searchsorted(bar_code, point_code, side="right")  # one past the symbol's last row
    has_entry = (point_code >= 0) & (entry < run_end)
    entry = np.where(has_entry, entry, n_bars)

    def column(name: str) -> np.ndarray:
        values = bars_t[name].to_numpy()
        pad = np.datetime64("NaT", "ns") if values.dtype.kind == "M" else np.nan
        return np.append(values, np.array([pad], dtype=values.dtype))

    entry_open = column("open")[entry]
    entry_adj_open = column("adj_open")[entry]
    entry_date = column("trade_date")[entry]
    fraction = limit_fractions(point_symbol, entry_date, has_entry, limits)
    up, down = limit_price_arrays(column("ref_close")[entry], fraction)
    blocked = ((action == "BUY") & (entry_open >= up - PRICE_TOLERANCE)) | (
        (action == "SELL") & (entry_open <= down + PRICE_TOLERANCE)
    )
    result = pd.DataFrame(
        {
            "entry_date": entry_date,
            "entry_price": entry_open,
            "entry_adj_open": entry_adj_open,
            "limit_up": up,
            "limit_down": down,
            "filled": has_entry & ~blocked,
        },
        index=points.index,
    )
    adj_close = column("adj_close")
    dates = column("trade_date")
    for h in steps:
        row = np.where(has_entry & (entry + h - 1 < run_end), entry + h - 1, n_bars)
        result[f"fwd_{h}"] = adj_close[row] / entry_adj_open - 1.0
        result[f"exit_{h}"] = dates[row]
    return result


def adjusted_prices(bars: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(adjusted closes, adjusted opens) as dates x symbols over every trading day of any symbol,
    NaN where a symbol did not trade: the panels `simulate` and `follow_portfolio` take."""
    bars_t = trading_bars(bars)
    closes = bars_t.pivot(index="trade_date", columns="symbol", values="adj_close")
    opens = bars_t.pivot(index="trade_date", columns="symbol", values="adj_open").reindex_like(closes)
    closes.index.name = opens.index.name = "trade_date"
    closes.columns.name = opens.columns.name = "symbol"
    return closes, opens


def index_levels(bars: pd.DataFrame, symbols: Iterable[str] | None = None) -> pd.DataFrame:
    """Open and close levels of an equal-weight index of `symbols` (default: every symbol in bars),
    rebalanced daily at the close, indexed by each day any of them traded.

    close[d] = close[d-1] x mean(adj_close[d] / adj_close[d-1]) and open[d] = close[d-1] x
    mean(adj_open[d] / adj_close[d-1]), both means over the symbols that traded on d and on the
    index's previous day d-1 (none: the level carries over). The first close is 1.0 and the first
    open is the mean of adj_open / adj_close that day, so for one symbol the levels are its adjusted
    open and close scaled to a first close of 1.0 and a window return is its own return.
    """
    bars_t = trading_bars(bars)
    if symbols is not None:
        bars_t = bars_t.loc[bars_t["symbol"].isin(list(symbols))]
    if bars_t.empty:
        return pd.DataFrame({"open": [], "close": []}, index=pd.DatetimeIndex([], name="trade_date"))
    closes = bars_t.pivot(index="trade_date", columns="symbol", values="adj_close")
    opens = bars_t.pivot(index="trade_date", columns="symbol", values="adj_open").reindex_like(closes)
    before = closes.shift(1)
    both = closes.notna() & before.notna()
    close_ratio = (closes / before).where(both).mean(axis=1).fillna(1.0)
    open_ratio = (opens / before).where(both).mean(axis=1).fillna(1.0)
    close_level = close_ratio.cumprod()
    open_level = close_level.shift(1) * open_ratio
    open_level.iloc[0] = float((opens.iloc[0] / closes.iloc[0]).mean())
    levels = pd.DataFrame({"open": open_level, "close": close_level})
    levels.index.name = "trade_date"
    return levels


def window_returns(
    levels: pd.DataFrame, entry_dates: Sequence | pd.Series, exit_dates: Sequence | pd.Series
) -> pd.Series:
    """close level on each exit date over open level on its entry date, minus 1 (NaN when a date is
    missing from `levels` or NaT): a benchmark return over exactly each verdict's own window.

    Indexed like `entry_dates` when it is a Series.
    """
    entry = pd.to_datetime(pd.Series(entry_dates) if not isinstance(entry_dates, pd.Series) else entry_dates)
    exits = exit_dates.to_numpy() if isinstance(exit_dates, pd.Series) else list(exit_dates)
    exit_ = pd.to_datetime(pd.Series(exits, index=entry.index))
    if len(exit_) != len(entry):
        raise BadRequestException("entry_dates and exit_dates differ in length")
    opened = levels["open"].reindex(pd.DatetimeIndex(entry)).to_numpy(dtype="float64")
    closed = levels["close"].reindex(pd.DatetimeIndex(exit_)).to_numpy(dtype="float64")
    return pd.Series(closed / opened - 1.0, index=entry.index, name="window_return", dtype="float64")


def _days(values: pd.Series | pd.DatetimeIndex) -> np.ndarray:
    """Calendar day numbers (days since 1970-01-01) of timestamps."""
    return np.asarray(pd.DatetimeIndex(values).to_numpy().astype("datetime64[D]").astype("int64"))


def _check_horizons(horizons: Sequence[int]) -> list[int]:
    steps = list(horizons)
    if not steps or any(not isinstance(h, (int, np.integer)) or isinstance(h, bool) or h < 1 for h in steps):
        raise BadRequestException(f"horizons must be positive whole numbers of trading days, got {steps}")
    if len(set(steps)) != len(steps):
        raise BadRequestException(f"horizons repeat: {steps}")
    return [int(h) for h in steps]


def limit_fractions(
    symbols: np.ndarray, entry_date: np.ndarray, has_entry: np.ndarray, limits: LimitSource | None
) -> np.ndarray:
    """The limit fraction of each verdict's entry day, NaN for no limit (or no entry)."""
    if limits is None:
        return np.full(len(symbols), np.nan)
    if isinstance(limits, Mapping):
        fractions = pd.Series(symbols).map(lambda s: limits.get(s)).astype("float64").to_numpy()
        return np.where(has_entry, fractions, np.nan)
    # A callable: once per distinct (symbol, entry day).
    pairs = pd.DataFrame({"symbol": symbols, "day": pd.to_datetime(entry_date)}).loc[has_entry]
    distinct = pairs.drop_duplicates()
    days = distinct["day"].to_numpy(dtype="datetime64[D]").tolist()  # `date`s without a Timestamp each
    values = [limits(s, d) for s, d in zip(distinct["symbol"], days, strict=True)]
    distinct = distinct.assign(fraction=pd.Series(values, index=distinct.index, dtype="float64"))
    merged = pairs.merge(distinct, on=["symbol", "day"], how="left")["fraction"].to_numpy()
    out = np.full(len(symbols), np.nan)
    out[has_entry] = merged
    return out


def excess_outcomes(
    bars: pd.DataFrame,
    points: pd.DataFrame,
    horizons: Sequence[int],
    limits: LimitSource | None,
    levels: pd.DataFrame,
) -> pd.DataFrame:
    """`fills_and_returns` of `points` plus `exc_<h>`: each forward return minus the benchmark
    levels' return over the point's own window (entry open to the h-th day's close). What
    `stockdesk evaluate` scores and what the signal model learns from: one definition for both."""
    fills = fills_and_returns(bars, points, horizons, limits)
    for h in horizons:
        bench = window_returns(levels, fills["entry_date"], fills[f"exit_{h}"])
        fills[f"exc_{h}"] = fills[f"fwd_{h}"] - bench.to_numpy()
    return fills
