"""Finance arithmetic shared by every context (the data store and the experts compute alike).

TTM figures from year-to-date reports (how A-share and SEC reports are stated):
TTM = latest YTD + last annual - same-period-last-year YTD; an annual report is its own TTM.
A period's year-earlier report is the one of the same type (Q1/H1/Q3/A) ending nearest a year before,
within 20 days: US 52/53-week fiscal calendars end on different days each year (AAPL 2023-07-01 vs
2024-06-29). Vectorised: one merge per term, no loops over rows.
"""

from __future__ import annotations

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


def report_kind(reports: pd.DataFrame) -> pd.Series:
    """Q1/H1/Q3/A per row: `report_type` where given, else from the month of `end_date` (A-share calendar).

    NaN where neither tells (a US period without a report type ending in, say, July).
    """
    by_month = pd.to_datetime(reports["end_date"]).dt.month.map(_KIND_BY_MONTH)
    if "report_type" not in reports.columns:
        return by_month.astype("object")
    return reports["report_type"].astype("object").where(reports["report_type"].notna(), by_month)


def period_months(reports: pd.DataFrame) -> pd.Series:
    """Months each year-to-date report covers (3/6/9/12); NaN where the report type is unknown."""
    return report_kind(reports).map(MONTHS_BY_KIND).astype("float64")


def prior_position(frame: pd.DataFrame) -> np.ndarray:
    """Row position of each period's year-earlier report of the same type, -1 where there is none.

    Nearest to end_date - 1 year within PRIOR_TOLERANCE_DAYS. A broadcast over all pairs: the frames
    are a company's dozen periods, and this runs per expert call (cheaper than a merge).
    """
    end = pd.DatetimeIndex(pd.to_datetime(frame["end_date"]))
    if len(end) == 0:
        return np.empty(0, dtype="int64")
    kind = report_kind(frame).fillna("?").to_numpy(dtype=object)
    days = end.to_numpy(dtype="datetime64[D]")
    probe = (end - pd.DateOffset(years=1)).to_numpy(dtype="datetime64[D]")
    gap = np.abs(days[None, :] - probe[:, None]).astype("int64")  # rows: period, columns: candidate
    gap[kind[None, :] != kind[:, None]] = np.iinfo("int64").max
    best = gap.argmin(axis=1)
    found = gap[np.arange(len(best)), best] <= PRIOR_TOLERANCE_DAYS
    return np.where(found, best, -1)


def ttm(reports: pd.DataFrame, value: str) -> pd.Series:
    """TTM of `value` for each row of `reports` (columns symbol, end_date, value; one row per period).

    Fiscal years may end in any month: a row is annual when its `report_type` is "A" (without that
    column: when it ends in December); the last annual is the latest one ending before the row, within
    380 days; the prior period is the same report type ending about a year earlier (52/53-week
    calendars drift by days). NaN where a needed prior report is missing.
    """
    end = pd.to_datetime(reports["end_date"]).astype("datetime64[ns]")
    kind = report_kind(reports)
    base = pd.DataFrame(
        {
            "symbol": reports["symbol"].to_numpy(),
            "end": end.to_numpy(),
            "kind": kind.to_numpy(),
            "v": pd.to_numeric(reports[value], errors="coerce").to_numpy(dtype="float64"),
            "order": np.arange(len(reports)),
        }
    )
    periods = base.drop_duplicates(["symbol", "end"], keep="last")
    annual = periods.loc[periods["kind"] == ANNUAL, ["symbol", "end", "v"]]
    annual = annual.rename(columns={"end": "annual_end", "v": "annual_prev"}).sort_values("annual_end")
    merged = pd.merge_asof(
        base.sort_values("end"),
        annual,
        left_on="end",
        right_on="annual_end",
        by="symbol",
        allow_exact_matches=False,
        tolerance=pd.Timedelta(days=380),
    )
    merged["probe"] = (merged["end"] - pd.DateOffset(years=1)).astype("datetime64[ns]")
    prior = periods[["symbol", "kind", "end", "v"]].rename(columns={"end": "prior_end", "v": "ytd_prev"})
    merged = pd.merge_asof(
        merged.sort_values("probe"),
        prior.sort_values("prior_end"),
        left_on="probe",
        right_on="prior_end",
        by=["symbol", "kind"],
        direction="nearest",
        tolerance=pd.Timedelta(days=20),
    ).sort_values("order")
    values = np.where(
        merged["kind"].to_numpy() == ANNUAL,
        merged["v"].to_numpy(),
        merged["v"].to_numpy() + merged["annual_prev"].to_numpy() - merged["ytd_prev"].to_numpy(),
    )
    return pd.Series(values, index=reports.index, name=f"{value}_ttm", dtype="float64")


def yoy_growth(frame: pd.DataFrame, column: str) -> pd.Series:
    """YoY growth in percent of each period (column end_date) against its year-earlier report.

    (cur - prior) / |prior| x 100; NaN where the prior is missing or zero. The prior is found by
    `prior_position` (same report type, nearest a year earlier), so 52/53-week years compare too.
    """
    cur = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype="float64")
    prior = prior_position(frame)
    before = np.where(prior >= 0, cur[prior], np.nan) if len(cur) else cur
    with np.errstate(divide="ignore", invalid="ignore"):
        growth = (cur - before) / np.abs(before) * 100
    valid = ~np.isnan(before) & (before != 0)
    return pd.Series(np.where(valid, growth, np.nan), index=frame.index, dtype="float64")
