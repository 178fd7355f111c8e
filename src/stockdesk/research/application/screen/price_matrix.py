"""All symbols' forward-adjusted closes as one matrix: a row per bar position, a column per symbol.

Each column holds the bars StockData.get_price_bars reads for one symbol ([as_of - BAR_DAYS,
as_of]), oldest first from position 0 (a shorter history ends early, NaN below), so that every
symbol's n-th bar sits at position n and the indicators' recurrences step all symbols alike.
Adjustment is the technical builder's, per symbol: adj_factor gaps filled forward, then backward,
then 1.0; prices x factor / the last factor.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

import numpy as np
import pandas as pd

from stockdesk.research.application.screen.long_rows import (
    day_stamps,
    floats,
    row_numbers,
    selected_in_order,
    stamp,
)
from stockdesk.research.application.stock_data import BAR_DAYS


@dataclass(frozen=True)
class PriceMatrix:
    close: np.ndarray
    """(positions, symbols) forward-adjusted closes, NaN after each symbol's last bar"""
    counts: np.ndarray
    """bars per symbol"""
    last_dates: np.ndarray
    """datetime64[D] of each symbol's last bar, NaT without bars"""

    def at_last(self, back: int = 0) -> np.ndarray:
        """Per symbol: the close `back` bars before its last one (NaN without that many bars)."""
        position = self.counts - 1 - back
        found = position >= 0
        out = np.full(len(self.counts), np.nan)
        out[found] = self.close[position[found], np.flatnonzero(found)]
        return out

    def ending_at(self) -> list[np.ndarray]:
        """Per position: the symbols whose last bar stands there."""
        width = self.close.shape[0]
        ends = self.counts - 1
        order = np.argsort(ends, kind="stable")
        bounds = np.searchsorted(ends[order], np.arange(width + 1))
        return [order[bounds[t] : bounds[t + 1]] for t in range(width)]


def price_matrix(bars: pd.DataFrame, symbols: pd.Index, as_of: date) -> PriceMatrix:
    """The bars of `symbols` (store columns symbol, trade_date, close, adj_factor) in the window."""
    days, unit = day_stamps(bars["trade_date"])
    rows = row_numbers(symbols, bars["symbol"])
    first_day, last_day = stamp(as_of - timedelta(days=BAR_DAYS), unit), stamp(as_of, unit)
    keep = selected_in_order(rows, days, (rows >= 0) & (days >= first_day) & (days <= last_day))
    rows, days = rows[keep], days[keep]
    close, factor = floats(bars, "close")[keep], floats(bars, "adj_factor")[keep]

    count = len(symbols)
    counts = np.bincount(rows, minlength=count)
    run_start = np.cumsum(counts) - counts
    positions = np.arange(len(rows)) - run_start[rows]
    filled = _filled(factor, rows)
    ends = run_start + counts - 1
    has_bars = counts > 0
    last_factor = np.ones(count)
    last_factor[has_bars] = filled[ends[has_bars]]
    matrix = np.full((int(counts.max(initial=0)), count), np.nan)
    matrix[positions, rows] = close * (filled / last_factor[rows])
    last_dates = np.full(count, np.datetime64("NaT"), dtype="datetime64[D]")
    last_dates[has_bars] = days[ends[has_bars]].view(unit).astype("datetime64[D]")
    return PriceMatrix(matrix, counts, last_dates)


def _filled(factor: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """`filled_factor` per symbol run: the last factor at or before each bar, else the first after
    it, else 1.0."""
    size = len(factor)
    present = ~np.isnan(factor)
    if present.all():
        return factor
    before = np.maximum.accumulate(np.where(present, np.arange(size), -1)) if size else present
    after = np.minimum.accumulate(np.where(present, np.arange(size), size)[::-1])[::-1] if size else present
    own_before = (before >= 0) & (rows[np.maximum(before, 0)] == rows)
    own_after = (after < size) & (rows[np.minimum(after, size - 1)] == rows)
    return np.where(
        own_before,
        factor[np.maximum(before, 0)],
        np.where(own_after, factor[np.minimum(after, size - 1)], 1.0),
    )
