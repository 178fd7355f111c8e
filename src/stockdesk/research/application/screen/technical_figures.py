"""The technical snapshot's figures for every symbol at once (close, changes, MAs, RSI, MACD).

Same definitions as `TechnicalSnapshotBuilder`: the bars of StockData's bar window,
forward-adjusted; a moving average needs as many bars as its period; RSI needs more than 14 bars
and MACD 34; change_Nd_pct = (close / the close N bars earlier - 1) x 100 with more than N bars;
rounded to 2 decimals (MACD to 3).
"""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

from stockdesk.research.application.screen.indicators import macd_last, rsi_last, sma_last
from stockdesk.research.application.screen.price_matrix import PriceMatrix, price_matrix
from stockdesk.research.application.screen.rounding import rounded
from stockdesk.research.application.snapshot.technical_snapshot_builder import MA_PERIODS

CHANGE_DAYS = (5, 20, 60)


def change_pct(matrix: PriceMatrix, days: int) -> np.ndarray:
    """Per symbol: percent change of the last close over the close `days` bars earlier."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return (matrix.at_last() / matrix.at_last(days) - 1) * 100


def technical_figures(bars: pd.DataFrame, symbols: pd.Index, as_of: date) -> pd.DataFrame:
    """One row per symbol (index `symbols`): trade_date, bars and the rounded technical fields."""
    matrix = price_matrix(bars, symbols, as_of)
    averages = sma_last(matrix, MA_PERIODS)
    dif, dea, hist = macd_last(matrix)
    dates = pd.Series(pd.to_datetime(matrix.last_dates)).dt.strftime("%Y-%m-%d").to_numpy(dtype=object)
    columns: dict[str, np.ndarray] = {
        "trade_date": dates,
        "close": rounded(matrix.at_last()),
        "bars": matrix.counts.astype("float64"),
        **{f"change_{d}d_pct": rounded(change_pct(matrix, d)) for d in CHANGE_DAYS},
        **{f"ma{p}": rounded(averages[p]) for p in MA_PERIODS},
        "rsi14": rounded(rsi_last(matrix)),
        "macd_dif": rounded(dif, 3),
        "macd_dea": rounded(dea, 3),
        "macd_hist": rounded(hist, 3),
    }
    return pd.DataFrame(columns, index=symbols)
