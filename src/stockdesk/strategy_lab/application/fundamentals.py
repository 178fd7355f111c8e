"""Single-quarter revenue and profit from year-to-date reports, for the momentum template's catalyst.

The store keeps reports as published: year-to-date figures typed Q1, H1, Q3, A (A-shares and SEC
filings alike). It holds no monthly revenue (the Tushare, AkShare, zvt and SEC sources are all
quarterly), so the catalyst's lookback in months is served by the quarters those months cover,
ceil(months / 3), in the template.

A quarter's own value is its YTD minus the previous YTD of the same fiscal year (Q1 is its own
quarter). That needs the previous report to be the preceding position (Q1 -> H1 -> Q3 -> A) about
three months earlier; otherwise the quarter is left empty rather than guessed. The quarter becomes
known when BOTH reports are out: its `ann_date` is the later of the two.

`profit` is what the spec's "earnings" catalyst reads: net profit after non-recurring items
(`profit_dedt`, 扣非净利润) where the quarter can be derived from it, else the net profit attributable
to the parent (`net_profit`; SEC filings and some A-share rows have only that). Each measure is
differenced within itself and the choice is made per quarter, so a quarter never subtracts one
measure from the other.
"""

from __future__ import annotations

import pandas as pd

ORDER = {"Q1": 1, "H1": 2, "Q3": 3, "A": 4}
REPORTED = ("revenue", "profit_dedt", "net_profit")  # YTD columns read from the store
VALUES = ("revenue", "profit")  # single-quarter columns handed to the template
COLUMNS = ["symbol", "end_date", "ann_date", *VALUES]
# catalyst_type -> the single-quarter column it compares (the lead's market panel reads this)
CATALYST_FIGURES = {"revenue": "revenue", "earnings": "profit"}
QUARTER_GAP_DAYS = (70, 115)


def single_quarter(reported: pd.DataFrame) -> pd.DataFrame:
    """symbol, end_date, ann_date, report_type, revenue, profit_dedt, net_profit (YTD) ->
    symbol, end_date, ann_date, revenue, profit per single quarter (missing columns count as empty)."""
    if reported.empty:
        return pd.DataFrame(columns=COLUMNS)
    frame = reported.reindex(columns=["symbol", "end_date", "ann_date", "report_type", *REPORTED])
    frame["end_date"] = pd.to_datetime(frame["end_date"])
    frame["ann_date"] = pd.to_datetime(frame["ann_date"])
    frame["position"] = frame["report_type"].map(ORDER)
    frame = frame.dropna(subset=["position"]).sort_values(["symbol", "end_date"])
    frame = frame.drop_duplicates(["symbol", "end_date"], keep="last")
    previous = frame.groupby("symbol")[["end_date", "ann_date", "position", *REPORTED]].shift(1)
    gap = (frame["end_date"] - previous["end_date"]).dt.days
    follows = (frame["position"] == previous["position"] + 1) & gap.between(*QUARTER_GAP_DAYS)
    first = frame["position"] == 1
    quarter = {}
    for column in REPORTED:
        value = frame[column].astype(float)
        quarter[column] = value.where(first, (value - previous[column].astype(float)).where(follows))
    out = frame[["symbol", "end_date"]].copy()
    out["revenue"] = quarter["revenue"]
    out["profit"] = quarter["profit_dedt"].fillna(quarter["net_profit"])
    both_out = pd.concat([frame["ann_date"], previous["ann_date"]], axis=1).max(axis=1)
    out["ann_date"] = frame["ann_date"].where(first, both_out)
    return out.dropna(subset=list(VALUES), how="all")[COLUMNS].reset_index(drop=True)
