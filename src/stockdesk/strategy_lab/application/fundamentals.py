"""Single-quarter revenue and ROE from year-to-date reports, for the template's catalyst filter.

The store keeps reports as published: year-to-date figures typed Q1, H1, Q3, A (A-shares and SEC
filings alike). A quarter's own value is its YTD minus the previous YTD of the same fiscal year
(Q1 is its own quarter). That needs the previous report to be the preceding position (Q1 -> H1 ->
Q3 -> A) about three months earlier; otherwise the quarter is left empty rather than guessed.
The quarter becomes known when BOTH reports are out: its `ann_date` is the later of the two.
ROE is differenced the same way: an approximation (the equity base moves), good enough for a
"recent average above the longer average" comparison.
"""

from __future__ import annotations

import pandas as pd

ORDER = {"Q1": 1, "H1": 2, "Q3": 3, "A": 4}
VALUES = ("revenue", "roe")
COLUMNS = ["symbol", "end_date", "ann_date", *VALUES]
QUARTER_GAP_DAYS = (70, 115)


def single_quarter(reported: pd.DataFrame) -> pd.DataFrame:
    """symbol, end_date, ann_date, report_type, revenue, roe (YTD) -> the same per single quarter."""
    if reported.empty:
        return pd.DataFrame(columns=COLUMNS)
    frame = reported.copy()
    frame["end_date"] = pd.to_datetime(frame["end_date"])
    frame["ann_date"] = pd.to_datetime(frame["ann_date"])
    frame["position"] = frame["report_type"].map(ORDER)
    frame = frame.dropna(subset=["position"]).sort_values(["symbol", "end_date"])
    frame = frame.drop_duplicates(["symbol", "end_date"], keep="last")
    previous = frame.groupby("symbol")[["end_date", "ann_date", "position", *VALUES]].shift(1)
    gap = (frame["end_date"] - previous["end_date"]).dt.days
    follows = (frame["position"] == previous["position"] + 1) & gap.between(*QUARTER_GAP_DAYS)
    first = frame["position"] == 1
    out = frame[["symbol", "end_date"]].copy()
    for column in VALUES:
        value = frame[column].astype(float)
        out[column] = value.where(first, (value - previous[column].astype(float)).where(follows))
    both_out = pd.concat([frame["ann_date"], previous["ann_date"]], axis=1).max(axis=1)
    out["ann_date"] = frame["ann_date"].where(first, both_out)
    return out.dropna(subset=list(VALUES), how="all")[COLUMNS].reset_index(drop=True)
