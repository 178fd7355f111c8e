"""Every symbol's visible reports as one table of periods, with the snapshots' period rules.

What the builders get per symbol (`GetFinanceForTickerUseCase(as_of, limit=12)`): each period's
latest version announced by as_of, the newest 12 periods, oldest first. Here for all symbols in one
table sorted by symbol and period end. The rules are `report_periods`': a report's type is its
report_type, else Q1/H1/Q3/A by the end month, else unknown; a period's year-earlier report is the
same type's nearest to a year before within 20 days, the earlier on a tie (unknown types pair only
with each other). Within a symbol's dozen periods it can only lie up to 11 rows back, so the search
is a loop over those offsets, never over symbols.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy as np
import pandas as pd

from stockdesk.research.application.screen.long_rows import last_of_runs, row_numbers
from stockdesk.research.application.snapshot.report_periods import yoy_growth_of
from stockdesk.research.application.stock_data import PERIODS_NEEDED
from stockdesk.shared.finance import ANNUAL, MONTHS_BY_KIND, PRIOR_TOLERANCE_DAYS, year_earlier

_KIND_BY_MONTH = np.array([None, None, None, "Q1", None, None, "H1", None, None, "Q3", None, None, "A"])
_UNKNOWN = "?"


@dataclass(frozen=True)
class PanelPeriods:
    """Periods of all symbols, sorted by symbol row, then end (oldest first)."""

    rows: np.ndarray
    """the symbol's row number (its position in the screen's symbols)"""
    ends: np.ndarray
    """datetime64[D]"""
    kinds: np.ndarray
    """object: Q1/H1/Q3/A or the given type; None where unknown"""
    report_type: np.ndarray
    """object, as stored (None where not given)"""
    priors: np.ndarray
    """position of each period's year-earlier report, -1 without one"""
    figures: dict[str, np.ndarray]
    last: np.ndarray
    """per symbol row: position of its newest period, -1 without reports"""

    def yoy(self, name: str) -> np.ndarray:
        """YoY growth in percent per period; NaN where the prior is missing or zero."""
        return yoy_growth_of(self.figures[name], self.priors)

    def from_end(self) -> np.ndarray:
        """Per period: how many newer periods its symbol has (0 for the newest)."""
        return self.last[self.rows] - np.arange(len(self.rows))

    def latest(self, values: np.ndarray) -> np.ndarray:
        """Per symbol row: the value of its newest period (NaN without reports)."""
        if not len(values):  # no symbol has a report announced yet
            return np.full(len(self.last), np.nan)
        return np.where(self.last >= 0, values[np.maximum(self.last, 0)], np.nan)

    def months(self) -> np.ndarray:
        """Months each year-to-date report covers (3/6/9/12); NaN where the type is unknown."""
        months = np.full(len(self.kinds), np.nan)
        for kind, count in MONTHS_BY_KIND.items():
            months[self.kinds == kind] = count
        return months


def visible_periods(
    financials: pd.DataFrame, symbols: pd.Index, as_of: date, figures: tuple[str, ...]
) -> PanelPeriods:
    """The newest PERIODS_NEEDED periods of each symbol announced by `as_of` (stored columns)."""
    rows = row_numbers(symbols, financials["symbol"]) if len(financials) else np.empty(0, dtype="int64")
    ends = _days(financials, "end_date")
    announced = _days(financials, "ann_date")
    keep = np.flatnonzero((rows >= 0) & ~np.isnat(ends) & (announced <= np.datetime64(as_of)))
    keep = keep[np.lexsort((announced[keep], ends[keep], rows[keep]))]
    newest = np.append((rows[keep][1:] != rows[keep][:-1]) | (ends[keep][1:] != ends[keep][:-1]), True)
    keep = keep[newest] if len(keep) else keep  # each period's latest version
    last = last_of_runs(rows[keep], len(symbols))
    keep = keep[last[rows[keep]] - np.arange(len(keep)) < PERIODS_NEEDED]
    rows, ends = rows[keep], ends[keep]

    given = _column(financials, "report_type", object)[keep]
    missing = pd.isna(given)
    given = np.where(missing, None, given)
    by_month = _KIND_BY_MONTH[ends.astype("datetime64[M]").astype("int64") % 12 + 1]
    kinds = np.where(missing, by_month, given)
    values = {name: _column(financials, name, "float64")[keep] for name in figures}
    return PanelPeriods(
        rows=rows,
        ends=ends,
        kinds=kinds,
        report_type=given,
        priors=_priors(rows, ends, kinds),
        figures=values,
        last=last_of_runs(rows, len(symbols)),
    )


def _days(frame: pd.DataFrame, column: str) -> np.ndarray:
    if not len(frame):
        return np.empty(0, dtype="datetime64[D]")
    return pd.to_datetime(frame[column]).to_numpy(dtype="datetime64[D]")


def _column(frame: pd.DataFrame, name: str, dtype: type | str) -> np.ndarray:
    if name not in frame:
        return np.full(len(frame), None if dtype is object else np.nan, dtype=dtype)
    if dtype is object:
        return frame[name].to_numpy(dtype=object)
    return pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype="float64")


def _priors(rows: np.ndarray, ends: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """Per period: the same type's period of the same symbol ending nearest a year earlier, within
    the tolerance, the earlier on a tie; -1 without one."""
    matched = np.where(pd.isna(kinds), _UNKNOWN, kinds)
    probe = year_earlier(ends)
    positions = np.arange(len(rows))
    best = np.full(len(rows), -1)
    best_gap = np.full(len(rows), PRIOR_TOLERANCE_DAYS + 1)
    for back in range(PERIODS_NEEDED - 1, 0, -1):  # earliest candidate first: a tie keeps it
        candidate = np.maximum(positions - back, 0)
        gap = np.abs((ends[candidate] - probe).astype("int64"))
        better = (
            (positions >= back)
            & (rows[candidate] == rows)
            & (matched[candidate] == matched)
            & (gap < best_gap)
        )
        best = np.where(better, candidate, best)
        best_gap = np.where(better, gap, best_gap)
    return best


def last_annual(periods: PanelPeriods) -> np.ndarray:
    """Per period: position of its symbol's latest annual period ending before it, -1 without."""
    annual = np.where(periods.kinds == ANNUAL, np.arange(len(periods.rows)), -1)
    before = np.maximum.accumulate(np.concatenate([[-1], annual[:-1]])) if len(annual) else annual
    same = before >= 0
    same[same] = periods.rows[before[same]] == periods.rows[same]
    return np.where(same, before, -1)
