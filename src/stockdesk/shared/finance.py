"""Finance arithmetic shared by every context (the data store and the experts compute alike).

TTM figures from year-to-date reports (how A-share and SEC reports are stated):
TTM = latest YTD + last annual - same-period-last-year YTD; an annual report is its own TTM.
Vectorised: one merge per term, no loops over rows.
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


def ttm(reports: pd.DataFrame, value: str) -> pd.Series:
    """TTM of `value` for each row of `reports` (columns symbol, end_date, value; one row per period).

    Fiscal years may end in any month: a row is annual when its `report_type` is "A" (without that
    column: when it ends in December); the last annual is the latest one ending before the row, within
    380 days; the prior period is the same report type ending about a year earlier (52/53-week
    calendars drift by days). NaN where a needed prior report is missing.
    """
    end = pd.to_datetime(reports["end_date"]).astype("datetime64[ns]")
    by_month = end.dt.month.map(_KIND_BY_MONTH)
    kind = (
        reports["report_type"].astype("object").fillna(by_month)
        if "report_type" in reports.columns
        else by_month
    )
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
    """YoY growth in percent of each period (column end_date) against the same period a year earlier.

    (cur - prior) / |prior| x 100; NaN where the prior is missing or zero.
    """
    end = pd.DatetimeIndex(pd.to_datetime(frame["end_date"]))
    cur = frame[column].astype("float64").to_numpy()
    # each period's value keyed by the day a year later: a lookup, not a merge (it runs per expert call)
    shifted = pd.Series(cur, index=end + pd.DateOffset(years=1))
    shifted = shifted[~shifted.index.duplicated(keep="last")]
    before = shifted.reindex(end).to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        growth = (cur - before) / np.abs(before) * 100
    valid = ~np.isnan(before) & (before != 0)
    return pd.Series(np.where(valid, growth, np.nan), index=frame.index, dtype="float64")
