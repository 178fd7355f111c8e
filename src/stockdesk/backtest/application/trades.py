"""The trades of a simulation as one table, for reports: what was bought and sold, when, at what price.

Columns: date, symbol, side (BUY | SELL), reason (rebalance: an execution of the targets; retry: a
sale that was refused earlier - suspension, limit-down - going through on the first open it can;
stop: a stop-loss exit at the close), weight_change (signed, a fraction of the NAV: of the NAV at the
open for rebalances and retries, of the day's NAV for stops), price (the fill: the raw open, or the
raw close of a stop; adjusted prices where the caller has no raw ones) and shares (NaN when the
simulation has no capital, so no share counts).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TRADE_COLUMNS = ("date", "symbol", "side", "reason", "weight_change", "price", "shares")
CHANGE_TOLERANCE = 1e-9
"""A weight change up to this is not a trade (the engine's order tolerance)."""
_REASON_ORDER = {"rebalance": 0, "retry": 0, "stop": 1}


def empty_trades() -> pd.DataFrame:
    return trades_from_grid(pd.DatetimeIndex([]), pd.Index([]), np.empty((0, 0)), np.empty((0, 0)), None, [])


def trades_from_grid(
    dates: pd.Index,
    symbols: pd.Index,
    change: np.ndarray,
    price: np.ndarray,
    shares: np.ndarray | None,
    reasons: list[str] | str,
) -> pd.DataFrame:
    """One row per cell of `change` (rows: `dates`, columns: `symbols`) with |change| above the tolerance.

    `reasons` is one reason for every row, or one per row of the grid.
    """
    rows, cols = np.nonzero(np.abs(change) > CHANGE_TOLERANCE)
    values = change[rows, cols]
    per_row = np.asarray([reasons] * len(dates) if isinstance(reasons, str) else reasons, dtype=object)
    return pd.DataFrame(
        {
            "date": pd.DatetimeIndex(dates[rows]) if len(rows) else pd.DatetimeIndex([]),
            "symbol": np.asarray(symbols, dtype=object)[cols],
            "side": np.where(values > 0, "BUY", "SELL").astype(object),
            "reason": per_row[rows] if len(rows) else np.array([], dtype=object),
            "weight_change": values.astype("float64"),
            "price": price[rows, cols].astype("float64"),
            "shares": np.full(len(rows), np.nan) if shares is None else shares[rows, cols].astype("float64"),
        },
        columns=list(TRADE_COLUMNS),
    )


def combine_trades(*tables: pd.DataFrame) -> pd.DataFrame:
    """The tables as one, by date, the open's trades before the close's stops, then by symbol."""
    frames = [t for t in tables if len(t)]
    if not frames:
        return tables[0] if tables else empty_trades()
    joined = pd.concat(frames, ignore_index=True)
    order = joined["reason"].map(_REASON_ORDER).fillna(0)
    return (
        joined.assign(_order=order)
        .sort_values(["date", "_order", "symbol"], kind="stable")
        .drop(columns="_order")
        .reset_index(drop=True)
    )
