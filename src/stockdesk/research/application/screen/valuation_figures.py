"""The valuation snapshot's market figures for every symbol at once: multiples and percentiles.

Same definitions as `ValuationSnapshotBuilder` over the rows `StockData` reads:
- the overview is each symbol's latest valuation row in [as_of - VALUATION_DAYS, as_of] (dv_ratio
  falls back to dv_ttm), multiples kept within the builder's sanity bounds and rounded to 2;
- total_mv in 亿: the bounded value / 1e8, rounded to 2;
- a percentile ranks the latest raw value among the valid (present, > 0) values of the trading days
  in (as_of - 3 calendar years, as_of]: N/A below 60 valid days or for a current value <= 0;
  round-half-up(count(valid <= current) / valid days x 100).
Counts per symbol are sums over each symbol's run of the sorted long arrays: no loop over symbols.
"""

from __future__ import annotations

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
from stockdesk.research.application.screen.rounding import bounded, rounded
from stockdesk.research.application.snapshot.valuation_snapshot_builder import (
    HISTORY_YEARS,
    MIN_HISTORY,
    YI,
)
from stockdesk.research.application.stock_data import VALUATION_DAYS

OVERVIEW = ("close", "total_mv", "pe_ttm", "pb", "ps_ttm", "dv_ratio", "dv_ttm")
PERCENTILES = {"pe_ttm": "pe_percentile", "pb": "pb_percentile", "ps_ttm": "ps_percentile"}


def latest_rows(
    valuations: pd.DataFrame, symbols: pd.Index, as_of: date
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(rows per symbol in StockData's window, the window's arrays sorted by symbol and day)."""
    days, unit = day_stamps(valuations["trade_date"])
    rows = row_numbers(symbols, valuations["symbol"])
    first_day, last_day = stamp(as_of - timedelta(days=VALUATION_DAYS), unit), stamp(as_of, unit)
    keep = selected_in_order(rows, days, (rows >= 0) & (days >= first_day) & (days <= last_day))
    window_start = stamp(pd.Timestamp(as_of) - pd.DateOffset(years=HISTORY_YEARS), unit)
    arrays = {
        "row": rows[keep],
        "in_window": days[keep] > window_start,  # the percentiles' (as_of - 3 years, as_of]
        **{c: floats(valuations, c)[keep] for c in OVERVIEW},
    }
    return np.bincount(arrays["row"], minlength=len(symbols)), arrays


def percentiles(
    arrays: dict[str, np.ndarray], latest: dict[str, np.ndarray], lengths: np.ndarray
) -> dict[str, np.ndarray]:
    """Each multiple's percentile per symbol, and history_days (trading days in the window).

    The rows stand sorted by symbol (`lengths` of them each), so per-symbol counts are sums over
    each symbol's run."""
    inside = arrays["in_window"]
    starts = (np.cumsum(lengths) - lengths)[lengths > 0]

    def per_symbol(mask: np.ndarray) -> np.ndarray:
        counted = np.zeros(len(lengths), dtype="int64")
        counted[lengths > 0] = np.add.reduceat(mask, starts, dtype="int64") if len(mask) else 0
        return counted

    out = {"history_days": per_symbol(inside).astype("float64")}
    for column, name in PERCENTILES.items():
        values, current = arrays[column], latest[column]
        with np.errstate(invalid="ignore"):
            positive = inside & (values > 0)
            valid = positive & (values < np.inf)  # present, finite and positive
            below = positive & (values <= np.repeat(current, lengths))  # read only where current counts
            usable = (current > 0) & (current < np.inf)
        size, rank = per_symbol(valid), per_symbol(below)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = rank / size * 100
        out[name] = np.where((size >= MIN_HISTORY) & usable, rounded(share, 0), np.nan)
    return out


def valuation_figures(valuations: pd.DataFrame, symbols: pd.Index, as_of: date) -> pd.DataFrame:
    """One row per symbol (index `symbols`): the bounded multiples, market cap and percentiles, and
    the raw pe_ttm and bounded price that PEG and Graham read (columns `_pe_raw`, `_price`)."""
    lengths, arrays = latest_rows(valuations, symbols, as_of)
    found = lengths > 0
    last = np.maximum(np.cumsum(lengths) - 1, 0)  # each symbol's newest row (sorted by day)
    latest = {c: np.where(found, arrays[c][last], np.nan) if len(arrays[c]) else np.full(len(found), np.nan)
              for c in OVERVIEW}  # fmt: skip
    dividend = np.where(np.isnan(latest["dv_ratio"]), latest["dv_ttm"], latest["dv_ratio"])
    shares = percentiles(arrays, latest, lengths)
    columns = {
        "pe_ttm": bounded("pe_ttm", latest["pe_ttm"]),
        "pb": bounded("pb", latest["pb"]),
        "ps_ttm": bounded("ps_ttm", latest["ps_ttm"]),
        "dv_ratio": bounded("dv_ratio", dividend),
        "total_mv": rounded(bounded("total_mv", latest["total_mv"]) / YI),
        **{name: shares[name] for name in PERCENTILES.values()},
        "pe_pct": shares["pe_percentile"] / 100,
        "pb_pct": shares["pb_percentile"] / 100,
        "history_days": shares["history_days"],
        "_pe_raw": latest["pe_ttm"],
        "_price": bounded("current_price", latest["close"]),
    }
    return pd.DataFrame(columns, index=symbols)
