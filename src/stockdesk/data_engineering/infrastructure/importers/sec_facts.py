"""SEC XBRL companyfacts -> canonical financial reports: year-to-date, point in time, vectorised.

A companyfacts file lists every value every 10-K/10-Q ever tagged, each with the filing (`accn`,
`form`, `filed`) and that filing's fiscal position (`fp`: Q1/Q2/Q3/FY). A fact is year-to-date when
its duration fits its filing's position (Q1 ~3 months, Q2 ~6, Q3 ~9, FY ~12; comparatives of the
prior year fit too), which fixes each period's fiscal-year start. Periods keep their real end dates
(US fiscal years end in any month); `report_type` comes from `fp`, not from the month. Instants
(equity, assets, liabilities) are taken at the period end; the cover-page share count (dei, dated a
few weeks later) belongs to its filing's own period.

Point in time: a period's first row is announced on the `filed` date of the first filing that reports
it; a later filing that re-reports a different value (a restatement, EPS after a split) adds a row on
its own `filed` date, carrying every value as known then. Re-reports of equal values, or of the same
amount re-tagged rounded to thousands or millions, add nothing. Per-share figures are stored as
filed (a filing after a stock split states the new basis); where a version carries EPS or the share
count over from an earlier filing, `extra["split_basis"]` names that filing's date, so readers can put
every figure on one share basis (`domain/splits.py`). The splits the filings tag come from
`split_events`.
Where a 10-Q tags only the discrete quarter of a concept, its YTD is the previous YTD plus that quarter.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import pandas as pd

from stockdesk.data_engineering.domain import frames as F
from stockdesk.data_engineering.domain.splits import BASIS_KEY, FILINGS, SPLIT_COLUMNS

logger = logging.getLogger(__name__)

# (taxonomy, concept, field, rank): for each period and field the best-ranked concept its first filing tags
CONCEPTS: list[tuple[str, str, str, int]] = [
    ("us-gaap", "EarningsPerShareDiluted", "eps", 0),
    ("us-gaap", "EarningsPerShareBasic", "eps", 1),
    ("us-gaap", "EarningsPerShareBasicAndDiluted", "eps", 2),
    ("us-gaap", "EarningsPerShareDiluted", "dt_eps", 0),
    ("us-gaap", "Revenues", "revenue", 0),
    ("us-gaap", "RevenueFromContractWithCustomerExcludingAssessedTax", "revenue", 1),
    ("us-gaap", "SalesRevenueNet", "revenue", 2),
    ("us-gaap", "NetIncomeLoss", "net_profit", 0),
    ("us-gaap", "GrossProfit", "gross_profit", 0),
    ("us-gaap", "StockholdersEquity", "equity", 0),
    ("us-gaap", "Liabilities", "liabilities", 0),
    ("us-gaap", "Assets", "assets", 0),
    ("dei", "EntityCommonStockSharesOutstanding", "shares", 0),
    ("us-gaap", "CommonStockSharesOutstanding", "shares", 1),
]
FIELDS = [
    "eps",
    "dt_eps",
    "revenue",
    "net_profit",
    "gross_profit",
    "equity",
    "assets",
    "liabilities",
    "shares",
]
DURATION_FIELDS = {"eps", "dt_eps", "revenue", "net_profit", "gross_profit"}
BASIS_FIELDS = {"eps": "eps", "dt_eps": "dt_eps", "shares": "total_shares"}  # per-share field -> column
COVER_SHARES = "EntityCommonStockSharesOutstanding"
UNITS = {"USD", "USD/shares", "shares"}
FORMS = {"10-K", "10-Q", "10-K/A", "10-Q/A"}
YTD_DAYS = {"Q1": 91, "Q2": 182, "Q3": 273, "FY": 364}
QUARTER_DAYS = 91
TOLERANCE_DAYS = 20  # 13/14-week quarters and 52/53-week years
REPORT_TYPE = {"Q1": "Q1", "Q2": "H1", "Q3": "Q3", "FY": "A"}
EXTRA_FIELDS = {"equity": "stockholders_equity", "assets": "assets", "liabilities": "liabilities",
                "gross_profit": "gross_profit"}  # fmt: skip


def long_facts(companyfacts: dict[str, Any]) -> pd.DataFrame:
    """Every fact of the concepts used, one row each, from 10-K/10-Q filings (dates parsed)."""
    columns = ["concept", "field", "rank", "start", "end", "val", "accn", "fp", "form", "filed"]
    facts = companyfacts.get("facts") or {}
    parts = []
    for taxonomy, concept, field, rank in CONCEPTS:
        units = ((facts.get(taxonomy) or {}).get(concept) or {}).get("units") or {}
        for unit, items in units.items():
            if unit in UNITS and items:
                parts.append(pd.DataFrame(items).assign(concept=concept, field=field, rank=rank))
    if not parts:
        return pd.DataFrame(columns=columns)
    out = pd.concat(parts, ignore_index=True).reindex(columns=columns)
    out = out[out["form"].isin(FORMS) & out["fp"].isin(list(YTD_DAYS))].copy()
    for column in ("start", "end", "filed"):
        out[column] = pd.to_datetime(out[column], format="ISO8601", errors="coerce")
    out["val"] = pd.to_numeric(out["val"], errors="coerce")
    unusable = out["end"].isna() | out["filed"].isna() | out["val"].isna() | (out["filed"] < out["end"])
    if unusable.any():
        logger.warning("companyfacts: %d fact(s) without usable dates or value skipped", int(unusable.sum()))
    return out[~unusable].reset_index(drop=True)


def _days(facts: pd.DataFrame) -> pd.Series:
    return (facts["end"] - facts["start"]).dt.days


def ytd_facts(facts: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(YTD duration facts with their period's fiscal-year start, periods: end, fy_start, fp)."""
    duration = facts[facts["field"].isin(DURATION_FIELDS) & facts["start"].notna()]
    expected = duration["fp"].map(YTD_DAYS).astype("float64")
    ytd = duration[(_days(duration) - expected).abs() <= TOLERANCE_DAYS]
    periods = (
        ytd.sort_values(["filed", "rank", "accn"])
        .drop_duplicates("end")[["end", "start", "fp"]]
        .rename(columns={"start": "fy_start"})
    )
    matched = ytd.merge(periods, left_on=["end", "start"], right_on=["end", "fy_start"], suffixes=("", "_p"))
    ytd = pd.concat([matched.drop(columns=["fp_p"]), quarter_sums(duration, matched, periods)])
    return ytd, periods.reset_index(drop=True)


def quarter_sums(duration: pd.DataFrame, ytd: pd.DataFrame, periods: pd.DataFrame) -> pd.DataFrame:
    """YTD = previous YTD (as known when filed) + discrete quarter, where a period has no YTD tag.

    Only the simple case: the period is known from another concept's YTD tag, and the quarter starts
    the day after a period of the same fiscal year that has the concept.
    """
    quarters = duration[
        duration["fp"].isin(["Q2", "Q3"]) & ((_days(duration) - QUARTER_DAYS).abs() <= TOLERANCE_DAYS)
    ].merge(periods[periods["fp"].isin(["Q2", "Q3"])], on="end", suffixes=("", "_p"))
    quarters = quarters.assign(prev_end=quarters["start"] - pd.Timedelta(days=1))
    derived: list[pd.DataFrame] = []
    for fp in ("Q2", "Q3"):  # Q3 may build on a derived Q2
        known = pd.concat([ytd, *derived])
        todo = quarters[quarters["fp_p"] == fp].merge(
            known[["end", "concept"]].drop_duplicates(), on=["end", "concept"], how="left", indicator=True
        )
        todo = todo[todo["_merge"] == "left_only"].drop(columns="_merge")
        prev = known[["end", "concept", "fy_start", "filed", "val"]].rename(
            columns={"end": "prev_end", "filed": "prev_filed", "val": "prev_val"}
        )
        both = todo.merge(prev, on=["prev_end", "concept", "fy_start"])
        both = both[both["prev_filed"] <= both["filed"]].sort_values("prev_filed")
        both = both.drop_duplicates(["end", "concept", "accn"], keep="last")
        derived.append(both.assign(start=both["fy_start"], fp=fp, val=both["prev_val"] + both["val"]))
    columns = [*ytd.columns]
    return pd.concat([d[columns] for d in derived]) if derived else ytd.iloc[0:0]


def period_values(facts: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Long values keyed by period end (durations YTD, instants at the end, cover shares) + periods."""
    ytd, periods = ytd_facts(facts)
    if periods.empty:
        return facts.iloc[0:0], periods
    instants = facts[~facts["field"].isin(DURATION_FIELDS) & facts["start"].isna()]
    cover = instants["concept"] == COVER_SHARES
    at_end = instants[~cover].merge(periods[["end"]], on="end")
    own_end = ytd.groupby("accn", as_index=False)["end"].max()  # a filing's own period: the latest it reports
    shares = instants[cover].drop(columns="end").merge(own_end, on="accn")
    values = pd.concat([ytd, at_end, shares], ignore_index=True)
    first = values[values["filed"] == values.groupby(["end", "field"])["filed"].transform("min")]
    chosen = first.sort_values("rank").drop_duplicates(["end", "field"])[["end", "field", "concept"]]
    values = values.merge(chosen, on=["end", "field", "concept"])
    return values, periods


def _precision(values: pd.Series) -> pd.Series:
    """The largest power of ten (1e-6 .. 1e12) each value is a whole multiple of (its stated precision)."""
    precision = pd.Series(1e-6, index=values.index)
    for exponent in range(-5, 13):
        step = 10.0**exponent
        ratio = values / step
        whole = np.isclose(ratio, np.round(ratio), rtol=0, atol=1e-6) & (np.round(ratio) != 0)
        precision = precision.where(~whole, step)
    return precision


def _rounds_to(value: pd.Series, rounded: pd.Series) -> pd.Series:
    """`rounded` is `value` rounded to thousands or coarser (amounts re-tagged in millions)."""
    step = _precision(rounded)
    near = np.isclose(np.floor(value / step + 0.5 + 1e-9) * step, rounded, rtol=1e-12, atol=0)
    return near & (step >= 1_000)


def same_value(a: pd.Series, b: pd.Series) -> pd.Series:
    """Equal, or one is the other rounded to the thousands/millions it is stated in, within 1%.

    Per-share figures never count as rounded: JSON drops trailing zeros (2.10 reads 2.1), so their
    precision cannot be told, and a cent of EPS is a restatement.
    """
    close = (a - b).abs() <= 0.01 * pd.concat([a.abs(), b.abs()], axis=1).max(axis=1)
    rounded = (_rounds_to(a, b) | _rounds_to(b, a)) & (a != 0) & (b != 0)
    return (a == b) | (close & rounded)


def point_in_time(values: pd.DataFrame) -> pd.DataFrame:
    """Wide rows per (end, filed): first reports, plus later filings that changed a value."""
    values = values.sort_values(["end", "field", "filed", "accn"]).drop_duplicates(
        ["end", "field", "filed"], keep="first"
    )
    previous = values.groupby(["end", "field"])["val"].shift()
    changes = values[previous.isna() | ~same_value(values["val"], previous)]
    wide = changes.pivot_table(index=["end", "filed"], columns="field", values="val", aggfunc="first")
    wide = wide.groupby(level="end").ffill()  # each version carries everything known by then
    source = changes.sort_values("rank").groupby(["end", "filed"])[["accn", "form"]].first()
    return wide.join(source).join(_stated_on(changes, wide.index)).reset_index()


def _stated_on(changes: pd.DataFrame, index: pd.MultiIndex) -> pd.DataFrame:
    """Per version and per-share field, the filing date of the value it carries (`stated_<field>`):
    a value carried from an earlier filing keeps that filing's share basis (see `domain/splits.py`)."""
    per_share = changes[changes["field"].isin(BASIS_FIELDS)]
    stated = per_share.assign(day=per_share["filed"].to_numpy(dtype="datetime64[D]").astype("int64"))
    wide = stated.pivot_table(index=["end", "filed"], columns="field", values="day", aggfunc="first")
    wide = wide.reindex(index=index, columns=list(BASIS_FIELDS)).groupby(level="end").ffill()
    return wide.apply(lambda days: pd.to_datetime(days, unit="D")).add_prefix("stated_")


def _div(numerator: pd.Series, denominator: pd.Series, scale: float = 1.0) -> pd.Series:
    return numerator / denominator.where(denominator != 0) * scale


def carried_basis(rows: pd.DataFrame) -> list[dict[str, str]]:
    """Per row, {column: filing date} of the per-share figures carried from an earlier filing
    (`extra["split_basis"]`): a split between that filing and the row's own changes their basis."""
    out: list[dict[str, str]] = [{} for _ in range(len(rows))]
    for field, column in BASIS_FIELDS.items():
        stated = rows.get(f"stated_{field}")
        if stated is None:
            continue
        earlier = (stated < rows["filed"]).to_numpy()
        for position in np.flatnonzero(earlier):
            out[position][column] = stated.iloc[position].date().isoformat()
    return out


def financial_reports(companyfacts: dict[str, Any], symbol: str) -> pd.DataFrame:
    """Canonical financial rows (FINANCIAL_COLUMNS) of one company."""
    facts = long_facts(companyfacts)
    if facts.empty:
        return pd.DataFrame(columns=F.FINANCIAL_COLUMNS)
    values, periods = period_values(facts)
    if values.empty:
        return pd.DataFrame(columns=F.FINANCIAL_COLUMNS)
    rows = point_in_time(values).merge(periods[["end", "fp"]], on="end")
    col = {f: rows[f] if f in rows else pd.Series(np.nan, index=rows.index) for f in FIELDS}
    out = pd.DataFrame(
        {
            "symbol": symbol,
            "end_date": rows["end"],
            "ann_date": rows["filed"],
            "report_type": rows["fp"].map(REPORT_TYPE),
            "eps": col["eps"],
            "dt_eps": col["dt_eps"],
            "bps": _div(col["equity"], col["shares"]),
            "roe": _div(col["net_profit"], col["equity"], 100.0),
            "grossprofit_margin": _div(col["gross_profit"], col["revenue"], 100.0),
            "netprofit_margin": _div(col["net_profit"], col["revenue"], 100.0),
            "debt_to_assets": _div(col["liabilities"], col["assets"], 100.0),
            "revenue": col["revenue"],
            "net_profit": col["net_profit"],
            "total_shares": col["shares"],
        }
    ).reindex(columns=F.FINANCIAL_COLUMNS)
    extra = pd.DataFrame({name: col[f] for f, name in EXTRA_FIELDS.items()})
    extra = extra.assign(fiscal_period=rows["fp"], form=rows["form"], accession_number=rows["accn"])
    out["extra"] = [
        {**{k: v for k, v in r.items() if pd.notna(v)}, **({BASIS_KEY: b} if b else {})}
        for r, b in zip(extra.to_dict("records"), carried_basis(rows), strict=True)
    ]
    return out.sort_values(["end_date", "ann_date"]).reset_index(drop=True)


SPLIT_CONCEPT = "StockholdersEquityNoteStockSplitConversionRatio1"
SPLIT_GAP_DAYS = 400  # tags of one ratio further apart than this are two splits
RATIO_TOLERANCE = 0.1  # the EPS restated across a split must move by the tagged ratio within 10%


def split_events(companyfacts: dict[str, Any], symbol: str) -> pd.DataFrame:
    """The stock splits the filings tag (`us-gaap:StockholdersEquityNoteStockSplitConversionRatio1`,
    unit `pure`), as `domain/splits.py` events: ex_date = the latest date tagged for the split (filers
    tag the announcement, approval, record or distribution date; the latest is the nearest to the
    ex-date), known_date = the first filing that tags it, source "filings".

    The tag does not say which way a reverse split goes (1-for-10 is tagged 10 by some, 0.1 by
    others), so the direction comes from the filings' own restatements: EPS of a period first filed
    before the split and re-filed after it must have moved by the ratio (or its inverse, a reverse
    split). A tagged split that no restatement confirms is left out and logged.
    """
    items = (((companyfacts.get("facts") or {}).get("us-gaap") or {}).get(SPLIT_CONCEPT) or {}).get("units")
    tags = pd.DataFrame((items or {}).get("pure") or [], columns=["end", "val", "filed"])
    for column in ("end", "filed"):
        tags[column] = pd.to_datetime(tags[column], format="ISO8601", errors="coerce")
    tags["val"] = pd.to_numeric(tags["val"], errors="coerce")
    tags = tags[tags["end"].notna() & tags["filed"].notna() & (tags["val"] > 0) & (tags["val"] != 1)]
    if tags.empty:
        return pd.DataFrame(columns=SPLIT_COLUMNS)
    tags = tags.sort_values(["val", "end"])
    apart = (tags["val"] != tags["val"].shift()) | (tags["end"].diff().dt.days > SPLIT_GAP_DAYS)
    grouped = tags.groupby(apart.cumsum())
    found = pd.DataFrame(
        {
            "ex_date": grouped["end"].max(),
            "tagged": grouped["val"].first(),
            "known_date": grouped["filed"].min(),
        }
    )
    eps = long_facts(companyfacts)
    eps = eps[eps["field"] == "eps"]
    rows = []
    for event in found.itertuples(index=False):
        ratio = _confirmed_ratio(eps, event.ex_date, float(event.tagged))
        if ratio is None:
            logger.warning("%s: split %s tagged for %s not confirmed by restated EPS; left out",
                           symbol, event.tagged, event.ex_date.date())  # fmt: skip
            continue
        rows.append({"symbol": symbol, "ex_date": event.ex_date, "ratio": ratio,
                     "known_date": event.known_date, "source": FILINGS})  # fmt: skip
    return pd.DataFrame(rows, columns=SPLIT_COLUMNS)


def _confirmed_ratio(eps: pd.DataFrame, ex_date: pd.Timestamp, tagged: float) -> float | None:
    """`tagged` or its inverse, whichever the median move of the EPS re-filed across `ex_date` matches."""
    key = ["concept", "start", "end"]
    before = eps[eps["filed"] < ex_date].sort_values("filed").drop_duplicates(key, keep="last")
    after = eps[eps["filed"] >= ex_date].sort_values("filed").drop_duplicates(key, keep="first")
    pairs = before.merge(after, on=key, suffixes=("_b", "_a"))
    pairs = pairs[(pairs["val_b"] * pairs["val_a"]) > 0]
    if pairs.empty:
        return None
    moved = float((pairs["val_b"] / pairs["val_a"]).median())
    for ratio in (tagged, 1.0 / tagged):
        if abs(moved / ratio - 1.0) <= RATIO_TOLERANCE:
            return ratio
    return None
