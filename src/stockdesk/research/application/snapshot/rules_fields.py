"""The code signals' fields for many dates of one symbol, from its history loaded once.

Each date sees exactly the rows its snapshot would read (StockData's windows, point in
time) and each number comes from the function the snapshot builder itself uses, so the signals
equal the snapshot path's (a test compares them date by date). What is skipped is everything the
signals do not read: patterns, levels, tables, highlights, and the per-point store reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

import numpy as np
import pandas as pd

from stockdesk.research.application.rules_history import SymbolHistory
from stockdesk.research.application.snapshot.financial_snapshot_builder import (
    AUDIT_FIGURES,
    latest_rule_fields,
)
from stockdesk.research.application.snapshot.report_periods import report_periods
from stockdesk.research.application.snapshot.technical_snapshot_builder import (
    filled_factor,
    filled_ohlc,
    rule_fields,
)
from stockdesk.research.application.snapshot.valuation_snapshot_builder import (
    FIGURES,
    HISTORY_YEARS,
    RecordFigures,
    bounded,
    figures_of,
    graham,
    peg_ratio,
    percentile_of,
)
from stockdesk.research.application.stock_data import BAR_DAYS, PERIODS_NEEDED, VALUATION_DAYS
from stockdesk.research.application.technical_analyst_service import MIN_BARS
from stockdesk.shared.dates import years_before

NO_REPORTS = "no financial report announced by this date"
TECHNICAL, VALUATION, FINANCIAL = "technical_analyst", "valuation_modeler", "financial_auditor"
REPORT_FIGURES = tuple(dict.fromkeys([*FIGURES, *AUDIT_FIGURES]))  # what the valuation and the audit read


class _Bars:
    """A symbol's bars as arrays, sliced per date like StockData.get_price_bars reads them."""

    def __init__(self, bars: pd.DataFrame):
        frame = bars.sort_values("trade_date")
        self.dates = frame["trade_date"].to_numpy(dtype="datetime64[ns]")
        numeric = {c: pd.to_numeric(frame[c], errors="coerce").to_numpy(dtype="float64") for c in
                   ("open", "high", "low", "close", "adj_factor")}  # fmt: skip
        self.close, self.factor = numeric["close"], numeric["adj_factor"]
        # filled before scaling: a positive scale keeps which of open and close is larger
        _, self.high, self.low = filled_ohlc(numeric["open"], numeric["high"], numeric["low"], self.close)

    def fields(self, day: date) -> dict[str, Any] | str:
        lo = np.searchsorted(self.dates, np.datetime64(day - timedelta(days=BAR_DAYS)), "left")
        hi = np.searchsorted(self.dates, np.datetime64(day), "right")
        if hi - lo < MIN_BARS:
            return f"NOT_ENOUGH_BARS: {hi - lo} daily bars by this date (at least {MIN_BARS})"
        factor = filled_factor(self.factor[lo:hi])
        scale = factor / factor[-1]
        close, high, low = (a[lo:hi] * scale for a in (self.close, self.high, self.low))
        trade_date = pd.Timestamp(self.dates[hi - 1]).date().isoformat()
        return {"trade_date": trade_date, **rule_fields(close, high, low)}


class _Reports:
    """Announced versions; per date the latest version of each period, newest 12 (as StockData reads them).

    A state's rows go to the builders' period rules in columns, as the records StockData builds
    would hold them (figures as floats, missing as NaN, report types None where not given).
    """

    def __init__(self, financials: pd.DataFrame):
        frame = financials.sort_values(["ann_date", "end_date"]).reset_index(drop=True)
        self.ann = frame["ann_date"].to_numpy(dtype="datetime64[ns]")
        self.end = frame["end_date"].to_numpy(dtype="datetime64[ns]")
        columns = {"end_date": frame["end_date"].to_numpy(dtype="datetime64[D]")}
        # object, not str: pandas' arrow strings are slow to take from
        given = (
            frame["report_type"].to_numpy(dtype=object)
            if "report_type" in frame
            else np.full(len(frame), None)
        )
        columns["report_type"] = np.where(pd.isna(given), None, given)
        for column in REPORT_FIGURES:
            values = frame[column] if column in frame else pd.Series(np.nan, index=frame.index)
            columns[column] = pd.to_numeric(values, errors="coerce").to_numpy(dtype="float64")
        self.columns = columns
        self._states: dict[int, tuple[RecordFigures, dict[str, Any]] | None] = {}

    def state(self, day: date) -> tuple[RecordFigures, dict[str, Any]] | None:
        known = int(np.searchsorted(self.ann, np.datetime64(day), "right"))
        if known not in self._states:
            self._states[known] = self._build(known)
        return self._states[known]

    def _build(self, known: int) -> tuple[RecordFigures, dict[str, Any]] | None:
        if not known:
            return None
        rows = self._latest(known)
        periods = report_periods({c: v[rows] for c, v in self.columns.items()}, REPORT_FIGURES)
        return figures_of(periods), {"periods": [latest_rule_fields(periods)]}

    def _latest(self, known: int) -> np.ndarray:
        """Rows of the newest PERIODS_NEEDED periods among the first `known` versions, oldest first
        (the order the builders sort them into): each period's latest announcement (of equal ones,
        the first)."""
        dated = np.flatnonzero(~np.isnat(self.end[:known]))
        end, ann = self.end[dated].view("int64"), self.ann[dated].view("int64")
        order = dated[np.lexsort((-dated, ann, end))]
        ends = self.end[order].view("int64")
        return order[np.append(ends[1:] != ends[:-1], True)][-PERIODS_NEEDED:] if len(order) else order


class _Valuations:
    """Daily valuations sliced per date like StockData reads them."""

    def __init__(self, valuations: pd.DataFrame):
        frame = valuations.sort_values("trade_date")
        self.dates = frame["trade_date"].to_numpy(dtype="datetime64[ns]")
        self.columns = {
            c: pd.to_numeric(frame[c], errors="coerce").to_numpy(dtype="float64")
            for c in ("close", "pe_ttm", "pb")
        }

    def fields(self, symbol: str, day: date, basis: RecordFigures) -> dict[str, Any]:
        hi = int(np.searchsorted(self.dates, np.datetime64(day), "right"))
        # StockData's overview: the latest row by the date within the history window (its first
        # look at the last month only saves a read)
        start = np.searchsorted(self.dates, np.datetime64(day - timedelta(days=VALUATION_DAYS)), "left")
        last = {c: (_value(v[hi - 1]) if hi > start else None) for c, v in self.columns.items()}
        window_start = years_before(day, HISTORY_YEARS)
        lo = int(np.searchsorted(self.dates, np.datetime64(window_start), "right"))
        lo = max(lo, int(start))
        pe_ttm = bounded("pe_ttm", last["pe_ttm"], symbol)
        price = bounded("current_price", last["close"], symbol)
        return {
            "pe_percentile": percentile_of(self.columns["pe_ttm"][lo:hi], last["pe_ttm"]),
            "pb_percentile": percentile_of(self.columns["pb"][lo:hi], last["pb"]),
            "graham_safety_margin": graham(basis, price)[1],
            "peg_ratio": peg_ratio(basis, last["pe_ttm"], pe_ttm),
        }


def _value(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


class RulesFieldsBuilder:
    def fields(self, history: SymbolHistory, dates: Sequence[date]) -> dict[date, dict[str, Any]]:
        """Per date, per expert (valuation_modeler, technical_analyst, financial_auditor): the
        snapshot fields its code signal reads, as the snapshot would hold them; an expert whose
        snapshot could not be built on that date (too few bars, no reports) maps to an error string."""
        bars = _Bars(history.bars)
        reports = _Reports(history.financials)
        valuations = _Valuations(history.valuations)
        out: dict[date, dict[str, Any]] = {}
        for day in dates:
            state = reports.state(day)
            out[day] = {
                TECHNICAL: bars.fields(day),
                VALUATION: valuations.fields(history.symbol, day, state[0]) if state else NO_REPORTS,
                FINANCIAL: state[1] if state else NO_REPORTS,
            }
        return out
