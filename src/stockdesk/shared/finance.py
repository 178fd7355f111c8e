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


def ttm(reports: pd.DataFrame, value: str) -> pd.Series:
    """TTM of `value` for each row of `reports` (columns symbol, end_date, value; one row per period).

    NaN where a needed prior report is missing.
    """
    end = pd.to_datetime(reports["end_date"])
    base = pd.DataFrame(
        {
            "symbol": reports["symbol"].to_numpy(),
            "year": end.dt.year.to_numpy(),
            "month": end.dt.month.to_numpy(),
            "v": pd.to_numeric(reports[value], errors="coerce").to_numpy(),
        }
    )
    periods = base.drop_duplicates(["symbol", "year", "month"], keep="last")
    annual = periods.loc[periods["month"] == 12, ["symbol", "year", "v"]].rename(columns={"v": "annual_prev"})
    annual["year"] += 1
    prior = periods[["symbol", "year", "month", "v"]].rename(columns={"v": "ytd_prev"})
    prior["year"] += 1
    merged = base.merge(annual, on=["symbol", "year"], how="left").merge(
        prior, on=["symbol", "year", "month"], how="left"
    )
    values = np.where(
        merged["month"].to_numpy() == 12,
        merged["v"].to_numpy(),
        merged["v"].to_numpy() + merged["annual_prev"].to_numpy() - merged["ytd_prev"].to_numpy(),
    )
    return pd.Series(values, index=reports.index, name=f"{value}_ttm", dtype="float64")
