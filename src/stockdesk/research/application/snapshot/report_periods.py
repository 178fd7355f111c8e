"""One company's financial reports as arrays, one row per period end: the period rules of the snapshots.

The definitions are `shared.finance`'s (which works on frames of many symbols for the data store):
a period's year-earlier report is the one of the same type (Q1/H1/Q3/A; `report_type`, else the end
month) ending nearest a year before, within 20 days, the earlier on a tie; YoY growth is
(cur - prior) / |prior| x 100; TTM = latest YTD + last annual (ending before it, within 380 days) -
the year-earlier YTD. Here they run on one symbol's dozen periods in plain numpy, where building and
querying a DataFrame per symbol costs milliseconds (issue 20). The valuation and financial snapshots,
their charts and the evaluation's batch path (`rules_fields`) all read their periods from here.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np
import pandas as pd
from pydantic import BaseModel

from stockdesk.shared.finance import ANNUAL, ANNUAL_TOLERANCE_DAYS, MONTHS_BY_KIND, PRIOR_TOLERANCE_DAYS

KIND_BY_MONTH = {months: kind for kind, months in MONTHS_BY_KIND.items()}  # A-share calendar
UNKNOWN_KIND = "?"  # what `prior_position` pairs an unknown report type with (`ttm` keeps them apart)
_FAR = np.iinfo("int64").max
_EPOCH_ORDINAL = 719_163  # date(1970, 1, 1).toordinal(): ordinals less this are datetime64[D] days

Columns = Mapping[str, np.ndarray]
"""Report rows as arrays: end_date (datetime64), report_type (object, None where not given), the
figures (floats, NaN where missing) and any text columns."""


@dataclass(frozen=True)
class ReportPeriods:
    """The reports' periods, oldest first: each period end's last given row."""

    ends: np.ndarray
    """datetime64[D]"""
    kinds: list[str | None]
    """Q1/H1/Q3/A, or the given report type; None where neither the type nor the end month tells."""
    priors: np.ndarray
    """Position of each period's year-earlier report (`shared.finance.prior_position`), -1 without."""
    figures: dict[str, np.ndarray]
    """float64 per figure"""
    text: dict[str, np.ndarray]
    """object per text column, as given"""

    def __len__(self) -> int:
        return len(self.ends)

    def months(self) -> np.ndarray:
        """Months each year-to-date report covers (3/6/9/12); NaN where the type is unknown."""
        return np.array([MONTHS_BY_KIND.get(k, np.nan) if k is not None else np.nan for k in self.kinds])

    def yoy(self, name: str) -> np.ndarray:
        """YoY growth in percent per period; NaN where the prior is missing or zero."""
        return yoy_growth_of(self.figures[name], self.priors)

    def last_ttm(self, name: str) -> float:
        """TTM of the newest period (`shared.finance.ttm` of the last row): itself when annual, else
        it + the last annual ending before it within 380 days - the same type's report nearest a year
        earlier; NaN where one lacks."""
        last = len(self.ends) - 1
        if last < 0:
            return float("nan")
        values, kind = self.figures[name], self.kinds[last]
        if kind == ANNUAL:
            return float(values[last])
        annual = [i for i in range(last) if self.kinds[i] == ANNUAL]  # all end before the last
        days = self.ends.astype("int64")
        if not annual or days[last] - days[annual[-1]] > ANNUAL_TOLERANCE_DAYS:
            return float("nan")
        prior = int(self.priors[last])
        if kind is None or kind == UNKNOWN_KIND:  # `ttm` pairs an unknown type only with itself
            same = np.array([k is kind if kind is None else k == kind for k in self.kinds])
            prior = _nearest(days, same, _days_since_epoch(_year_earlier(self.ends[last].item())))
        return float(values[last] + values[annual[-1]] - values[prior]) if prior >= 0 else float("nan")


def yoy_growth_of(values: np.ndarray, priors: np.ndarray) -> np.ndarray:
    """YoY growth in percent of each period over the one at its `priors` position (-1: none); NaN
    where the prior is missing or zero. One company's periods here, every company's in the screen."""
    before = np.where(priors >= 0, values[np.maximum(priors, 0)], np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        growth = (values - before) / np.abs(before) * 100
    return np.where(~np.isnan(before) & (before != 0), growth, np.nan)


def report_periods(
    reports: Sequence[BaseModel] | Columns | pd.DataFrame, figures: Sequence[str], text: Sequence[str] = ()
) -> ReportPeriods:
    """The periods of records (each with end_date and report_type) or of rows already in columns (a
    column they lack is missing throughout)."""
    if isinstance(reports, (Mapping, pd.DataFrame)):
        count = len(reports["end_date"])
        dates: list[date] = np.asarray(reports["end_date"]).astype("datetime64[D]").tolist()
        given = _column(reports, "report_type", count, object)
        types = list(np.where(pd.isna(given), None, given))
        values = {n: _column(reports, n, count, "float64") for n in figures}
        texts = {n: _column(reports, n, count, object) for n in text}
    else:
        dates = [r.end_date for r in reports]
        types = [getattr(r, "report_type", None) for r in reports]
        getter = operator.attrgetter(*figures)
        table = np.array([getter(r) for r in reports], dtype="float64").reshape(len(reports), len(figures))
        values = {n: np.ascontiguousarray(table[:, i]) for i, n in enumerate(figures)}
        texts = {n: np.array([getattr(r, n) for r in reports], dtype=object) for n in text}
    days = np.array([_days_since_epoch(d) for d in dates], dtype="int64")
    rows = _last_per_end(days.astype("datetime64[D]"))
    if len(rows) < len(days) or not (rows == np.arange(len(rows))).all():
        days, dates, types = days[rows], [dates[i] for i in rows], [types[i] for i in rows]
        values = {n: v[rows] for n, v in values.items()}
        texts = {n: v[rows] for n, v in texts.items()}
    kinds = [KIND_BY_MONTH.get(d.month) if t is None else t for d, t in zip(dates, types, strict=True)]
    return ReportPeriods(
        ends=days.astype("datetime64[D]"),
        kinds=kinds,
        priors=_priors(days, dates, kinds),
        figures=values,
        text=texts,
    )


def _column(rows: Columns | pd.DataFrame, name: str, count: int, dtype: type | str) -> np.ndarray:
    """A column as an array of `dtype` (figures: NaN where missing or not a number); all missing when
    the rows lack it."""
    if name not in rows:
        return np.full(count, None if dtype is object else np.nan, dtype=dtype)
    values = rows[name]
    if dtype is object:
        return np.asarray(values, dtype=object)
    values = np.asarray(values)
    if values.dtype == np.float64:
        return values
    return pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype="float64")


def _last_per_end(ends: np.ndarray) -> np.ndarray:
    """Positions of one row per end, oldest first: of rows with equal ends, the last in the order
    `by_period` sorts them into (numpy's quicksort of datetime64, as `sort_values`), so the same row
    stands for the period."""
    if len(ends) < 2 or bool((ends[1:] > ends[:-1]).all()):
        return np.arange(len(ends))
    order = ends.argsort(kind="quicksort")
    ordered = ends[order]
    return order[np.append(ordered[1:] != ordered[:-1], True)]


def _days_since_epoch(day: date) -> int:
    return day.toordinal() - _EPOCH_ORDINAL


def _year_earlier(day: date) -> date:
    """`shared.finance.year_earlier` of one date: a calendar year back, 29 February to the 28th."""
    if day.month == 2 and day.day == 29:
        return day.replace(year=day.year - 1, day=28)
    return day.replace(year=day.year - 1)


def _priors(days: np.ndarray, dates: list[date], kinds: list[str | None]) -> np.ndarray:
    """`prior_position`: per period, the same type's nearest a year earlier within the tolerance (an
    unknown type counts as "?"). A broadcast over a dozen periods' pairs, in whole days."""
    if not len(days):
        return np.empty(0, dtype="int64")
    codes: dict[str, int] = {}
    kind = np.array([codes.setdefault(UNKNOWN_KIND if k is None else k, len(codes)) for k in kinds])
    probe = np.array([_days_since_epoch(_year_earlier(d)) for d in dates], dtype="int64")
    gap = np.abs(days[None, :] - probe[:, None])  # rows: period, columns: candidate
    gap[kind[None, :] != kind[:, None]] = _FAR
    best = gap.argmin(axis=1)
    return np.where(gap[np.arange(len(best)), best] <= PRIOR_TOLERANCE_DAYS, best, -1)


def _nearest(days: np.ndarray, same: np.ndarray, probe: int) -> int:
    """Position among `same` of the day nearest `probe` within the tolerance (the earlier on a tie), -1."""
    gap = np.where(same, np.abs(days - probe), _FAR)
    best = int(gap.argmin())
    return best if gap[best] <= PRIOR_TOLERANCE_DAYS else -1
