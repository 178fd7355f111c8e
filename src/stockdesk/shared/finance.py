"""Finance arithmetic shared by every context (the data store and the experts compute alike).

TTM figures from year-to-date reports (how A-share and SEC reports are stated):
TTM = latest YTD + last annual - same-period-last-year YTD; an annual report is its own TTM.
A period's year-earlier report is the one of the same type (Q1/H1/Q3/A) ending nearest a year before,
within 20 days: US 52/53-week fiscal calendars end on different days each year (AAPL 2023-07-01 vs
2024-06-29). Vectorised in numpy across rows and symbols alike (no merges, no loops over rows): a
company's dozen periods cost microseconds, and the data store's frames of many symbols the same
few sorts and binary searches.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pandas as pd


def round_half_up(value: float, digits: int = 0) -> float:
    """Commercial rounding (2.5 -> 3), unlike Python's round() which rounds half to even."""
    quantum = Decimal(1).scaleb(-digits)
    return float(Decimal(repr(value)).quantize(quantum, rounding=ROUND_HALF_UP))


ANNUAL = "A"
_KIND_BY_MONTH = {3: "Q1", 6: "H1", 9: "Q3", 12: "A"}
MONTHS_BY_KIND = {"Q1": 3, "H1": 6, "Q3": 9, "A": 12}
PRIOR_TOLERANCE_DAYS = 20
ANNUAL_TOLERANCE_DAYS = 380
_KINDS_BY_MONTH = np.array([_KIND_BY_MONTH.get(month, np.nan) for month in range(1, 13)], dtype=object)
_NS_PER_DAY = 86_400 * 10**9
_FLOAT, _OBJECT = np.dtype("float64"), np.dtype("object")  # dtype objects: a dtype string costs 20 us a call


def _datetimes(column: pd.Series) -> np.ndarray:
    """The column as a numpy datetime64 array (parsed where it holds dates, strings or Timestamps)."""
    if isinstance(column.dtype, np.dtype) and column.dtype.kind == "M":
        return column.to_numpy()
    return pd.to_datetime(column).to_numpy()


def _floats(column: pd.Series) -> np.ndarray:
    """The column as float64; NaN where missing or not a number. A view for a float64 column: read only."""
    if column.dtype == _FLOAT:
        return column.to_numpy()
    return pd.to_numeric(column, errors="coerce").to_numpy(dtype="float64")


def _kinds(reports: pd.DataFrame, end: np.ndarray | None = None) -> np.ndarray:
    """Q1/H1/Q3/A per row as an object array: `report_type` where given, else from the end month."""
    end = _datetimes(reports["end_date"]) if end is None else end
    months = end.astype("datetime64[M]").astype("int64") % 12
    by_month = _KINDS_BY_MONTH[months]
    by_month[np.isnat(end)] = np.nan
    if "report_type" not in reports.columns:
        return by_month
    given = reports["report_type"].to_numpy(dtype=object)
    return np.where(pd.isna(given), by_month, given)


def _months(kinds: np.ndarray) -> np.ndarray:
    months = np.full(len(kinds), np.nan)
    for kind, count in MONTHS_BY_KIND.items():
        months[kinds == kind] = count
    return months


def year_earlier(values: np.ndarray) -> np.ndarray:
    """Each datetime64 one calendar year earlier, the time of day kept; 29 February becomes the 28th.

    What subtracting `pd.DateOffset(years=1)` gives, without its per-call cost.
    """
    day = values.astype("datetime64[D]")
    month = day.astype("datetime64[M]")
    earlier = month - np.timedelta64(12, "M")
    first = earlier.astype("datetime64[D]")
    length = (earlier + np.timedelta64(1, "M")).astype("datetime64[D]") - first
    shifted = first + np.minimum(day - month.astype("datetime64[D]"), length - np.timedelta64(1, "D"))
    return shifted.astype(values.dtype) + (values - day.astype(values.dtype))


def report_kind(reports: pd.DataFrame) -> pd.Series:
    """Q1/H1/Q3/A per row: `report_type` where given, else from the month of `end_date` (A-share calendar).

    NaN where neither tells (a US period without a report type ending in, say, July).
    """
    name = "report_type" if "report_type" in reports.columns else reports["end_date"].name
    return pd.Series(_kinds(reports), index=reports.index, dtype=_OBJECT, name=name)


def period_months(reports: pd.DataFrame) -> pd.Series:
    """Months each year-to-date report covers (3/6/9/12); NaN where the report type is unknown."""
    name = "report_type" if "report_type" in reports.columns else reports["end_date"].name
    return pd.Series(_months(_kinds(reports)), index=reports.index, dtype=_FLOAT, name=name)


def by_period(reports: pd.DataFrame, columns: Sequence[str], text: Sequence[str] = ()) -> pd.DataFrame:
    """`columns` of report rows with one row per period end (the last row given for it), oldest first.

    end_date as datetime64, the `text` columns as given, every other column as float64 (NaN where
    missing or not a number; a column `reports` lacks is missing throughout). Rows with equal ends
    are ordered as `sort_values("end_date")` orders them, so "the last given" is the same row. Rows
    already in that shape and order pass with little more than a look at their types.
    """
    end = _datetimes(reports["end_date"])
    missing = np.isnat(end)
    dated = np.flatnonzero(~missing)
    order = np.concatenate([dated[end[dated].argsort(kind="quicksort")], np.flatnonzero(missing)])
    stamps = end.view("int64")[order]
    rows = order[np.append(stamps[1:] != stamps[:-1], True)] if len(order) else order
    in_order = len(rows) == len(reports) and bool((rows == np.arange(len(rows))).all())
    frame = (reports if in_order else reports.take(rows)).reset_index(drop=True)
    types = dict(zip(frame.columns, frame.dtypes, strict=True))
    fixed: dict[str, np.ndarray] = {}
    for column in columns:
        if column not in types:
            fixed[column] = np.full(
                len(rows), None if column in text else np.nan, dtype=_OBJECT if column in text else _FLOAT
            )
        elif column == "end_date":
            if types[column] != end.dtype:
                fixed[column] = end[rows]
        elif column not in text and types[column] != _FLOAT:
            fixed[column] = _floats(frame[column])
    if fixed:
        frame = frame.assign(**fixed)
    return frame if list(frame.columns) == list(columns) else frame.reindex(columns=list(columns))


def prior_position(frame: pd.DataFrame) -> np.ndarray:
    """Row position of each period's year-earlier report of the same type, -1 where there is none.

    Nearest to end_date - 1 year within PRIOR_TOLERANCE_DAYS. A broadcast over all pairs: the frames
    are a company's dozen periods, and this runs per expert call (cheaper than a merge).
    """
    end = _datetimes(frame["end_date"])
    if len(end) == 0:
        return np.empty(0, dtype="int64")
    kind = _kinds(frame, end)
    kind = np.where(pd.isna(kind), "?", kind)
    days = end.astype("datetime64[D]")
    probe = year_earlier(days)
    gap = np.abs(days[None, :] - probe[:, None]).astype("int64")  # rows: period, columns: candidate
    gap[kind[None, :] != kind[:, None]] = np.iinfo("int64").max
    best = gap.argmin(axis=1)
    found = gap[np.arange(len(best)), best] <= PRIOR_TOLERANCE_DAYS
    return np.where(found, best, -1)


def _codes(values: np.ndarray) -> np.ndarray:
    """Group codes of `values`, all missing values one group (as merge keys match NaN with NaN)."""
    codes, uniques = pd.factorize(values)
    codes[codes < 0] = len(uniques)
    return codes.astype("int64")


def _asof(rows: np.ndarray, group: np.ndarray, time: np.ndarray, at: np.ndarray, side: str) -> np.ndarray:
    """Per row: among the candidate `rows` (sorted by group, then time) of its group, the last one
    "before" (strictly) or "by" (at or before) the time `at` of the row, or the first one "after" it
    (at or after); -1 where there is none. Times become ranks so that group and time sort as one key.
    """
    grid = np.unique(np.concatenate([time[rows], at]))
    keys = group[rows] * (len(grid) + 1) + np.searchsorted(grid, time[rows])
    at_keys = group * (len(grid) + 1) + np.searchsorted(grid, at)
    if side == "after":
        found = np.searchsorted(keys, at_keys, "left")
    else:
        found = np.searchsorted(keys, at_keys, "left" if side == "before" else "right") - 1
    inside = (found >= 0) & (found < len(rows))
    match = rows[np.where(inside, found, 0)] if len(rows) else np.zeros(len(at), dtype="int64")
    return np.where(inside & (group[match] == group), match, -1)


def ttm(reports: pd.DataFrame, value: str) -> pd.Series:
    """TTM of `value` for each row of `reports` (columns symbol, end_date, value; one row per period;
    without a symbol column, all rows are one company's).

    Fiscal years may end in any month: a row is annual when its `report_type` is "A" (without that
    column: when it ends in December); the last annual is the latest one ending before the row, within
    380 days; the prior period is the same report type ending about a year earlier (52/53-week
    calendars drift by days): the nearest to a year earlier within 20 days, the earlier on a tie.
    NaN where a needed prior report is missing. Where a symbol repeats a period end, the last row
    given stands for that period.
    """
    end = _datetimes(reports["end_date"])
    kind = _kinds(reports, end)
    end = end.astype("datetime64[ns]")
    if np.isnat(end).any():
        raise ValueError("ttm: end_date has missing values")
    v = _floats(reports[value])
    time = end.view("int64")
    if "symbol" in reports.columns:
        symbol = _codes(reports["symbol"].to_numpy())
    else:
        symbol = np.zeros(len(time), dtype="int64")
    kind_code = _codes(kind)
    group = symbol * (kind_code.max(initial=0) + 1) + kind_code  # symbol and report type

    # the periods: each symbol's last row per end date, by symbol and end date
    order = np.lexsort((np.arange(len(time)), time, symbol))
    next_differs = (np.diff(symbol[order]) != 0) | (np.diff(time[order]) != 0)
    periods = order[np.append(next_differs, True)] if len(order) else order

    annual = _asof(periods[kind[periods] == ANNUAL], symbol, time, time, "before")
    annual_ok = (annual >= 0) & (time - time[annual] <= ANNUAL_TOLERANCE_DAYS * _NS_PER_DAY)

    same_type = periods[np.lexsort((time[periods], group[periods]))]
    probe = year_earlier(end).view("int64")
    before = _asof(same_type, group, time, probe, "by")
    after = _asof(same_type, group, time, probe, "after")
    tolerance = PRIOR_TOLERANCE_DAYS * _NS_PER_DAY
    before_gap = np.where(before >= 0, probe - time[before], tolerance + 1)
    after_gap = np.where(after >= 0, time[after] - probe, tolerance + 1)
    nearest = np.where((before_gap <= tolerance) & (before_gap <= after_gap), before, after)
    prior_ok = (nearest >= 0) & (np.minimum(before_gap, after_gap) <= tolerance)

    annual_prev = np.where(annual_ok, v[annual], np.nan)
    ytd_prev = np.where(prior_ok, v[nearest], np.nan)
    values = np.where(kind == ANNUAL, v, v + annual_prev - ytd_prev)
    return pd.Series(values, index=reports.index, name=f"{value}_ttm", dtype=_FLOAT)


def yoy_growth(frame: pd.DataFrame, column: str) -> pd.Series:
    """YoY growth in percent of each period (column end_date) against its year-earlier report.

    (cur - prior) / |prior| x 100; NaN where the prior is missing or zero. The prior is found by
    `prior_position` (same report type, nearest a year earlier), so 52/53-week years compare too.
    """
    cur = _floats(frame[column])
    prior = prior_position(frame)
    before = np.where(prior >= 0, cur[prior], np.nan) if len(cur) else cur
    with np.errstate(divide="ignore", invalid="ignore"):
        growth = (cur - before) / np.abs(before) * 100
    valid = ~np.isnan(before) & (before != 0)
    return pd.Series(np.where(valid, growth, np.nan), index=frame.index, dtype=_FLOAT)
