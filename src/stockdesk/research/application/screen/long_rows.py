"""Long frames (a row per symbol and day) mapped onto the screen's symbols, cheaply.

The store returns millions of rows ordered by symbol and date; matching each row's symbol text
against the screen's symbols one by one would cost more than the figures themselves, so the
symbols are factorised first (a few thousand distinct) and the order is checked before sorting.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def row_numbers(symbols: pd.Index, column: pd.Series) -> np.ndarray:
    """Each row's position in `symbols` (-1 for a symbol not screened or missing). A categorical
    column (as the panel reader returns it) maps by its codes; text is factorised first."""
    if not len(column):
        return np.empty(0, dtype="int64")
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes, distinct = column.cat.codes.to_numpy(), column.cat.categories
    else:
        codes, distinct = pd.factorize(column)
    positions = np.append(symbols.get_indexer(distinct), -1)  # code -1 (missing) takes the last
    return positions[codes]


def day_stamps(column: pd.Series) -> tuple[np.ndarray, np.dtype]:
    """A date column as int64 ticks in its own datetime64 unit, and that unit (to convert bounds
    with `stamp`): comparing and differencing int64 costs a fraction of datetime64's."""
    values = column.to_numpy()
    if values.dtype.kind != "M":
        values = pd.to_datetime(column).to_numpy()
    return values.view("int64"), values.dtype


def stamp(moment: object, unit: np.dtype) -> int:
    """A date or Timestamp as int64 ticks of `unit`."""
    return int(np.datetime64(pd.Timestamp(moment)).astype(unit).view("int64"))


def as_categories(frame: pd.DataFrame, symbols: list[str]) -> pd.DataFrame:
    """`frame` with its symbol column as a categorical over `symbols` (what row_numbers reads fast)."""
    return frame.assign(symbol=pd.Categorical(frame["symbol"], categories=symbols))


def selected_in_order(rows: np.ndarray, days: np.ndarray, keep: np.ndarray) -> np.ndarray | slice:
    """The rows where `keep` holds, ordered by symbol row, then day: a slice taking everything when
    they all count and already stand in that order (as the store returns them), else positions."""
    if keep.all() and _in_order(rows, days):
        return slice(None)
    chosen = np.flatnonzero(keep)
    return (
        chosen if _in_order(rows[chosen], days[chosen]) else chosen[np.lexsort((days[chosen], rows[chosen]))]
    )


def _in_order(rows: np.ndarray, days: np.ndarray) -> bool:
    step = np.diff(rows)
    return bool((step >= 0).all() and (np.diff(days)[step == 0] > 0).all())


def last_of_runs(rows: np.ndarray, count: int) -> np.ndarray:
    """Position of each row number's last element in `rows` (sorted), -1 where it does not occur."""
    ends = np.flatnonzero(np.append(rows[1:] != rows[:-1], True)) if len(rows) else rows
    last = np.full(count, -1)
    last[rows[ends]] = ends
    return last


def floats(frame: pd.DataFrame, column: str) -> np.ndarray:
    """A column as float64 (NaN where missing or not a number; all NaN where the frame lacks it)."""
    if column not in frame:
        return np.full(len(frame), np.nan)
    values = frame[column]
    if values.dtype == np.float64:
        return values.to_numpy()
    return pd.to_numeric(values, errors="coerce").to_numpy(dtype="float64")
