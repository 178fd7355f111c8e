"""Daily valuation series derived from real inputs where a source reports none (SEC + prices, samples).

PE-TTM = close / EPS-TTM, PB = close / BPS, total_mv = close x shares, PS-TTM = total_mv / revenue TTM,
PE (static) = close / last annual EPS, dividend yield TTM = cash dividends per share with ex-date in
the last 365 days / close x 100. Each trading day uses only reports announced on or before it
(merge_asof on ann_date), so derived rows carry no look-ahead. Closes are the prices traded that
day, so per-share figures, share counts and dividends are put on that day's share basis: after a
split, a report filed before it is divided by the ratio from the ex-date on (`domain/splits.py`).
Ratios with a non-positive denominator are left empty rather than negative or infinite. Rows are
flagged `is_derived`.
"""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

from stockdesk.data_engineering.domain import frames as F
from stockdesk.data_engineering.domain.ports import IMarketDataRepository
from stockdesk.data_engineering.domain.splits import cumulative_ratio, versions_on_daily_basis
from stockdesk.shared.finance import ttm


def report_inputs(financials: pd.DataFrame) -> pd.DataFrame:
    """Per announcement event: the TTM and point values a valuation needs, as known on that day.

    Each event sees only the report versions announced by then (a restatement filed later does not
    rewrite the past), so derived history is point in time too.
    """
    versions = financials.copy()
    for column in ("eps", "bps", "revenue", "total_shares", "report_type"):
        if column not in versions.columns:
            versions[column] = np.nan
    versions["end_date"] = pd.to_datetime(versions["end_date"]).astype("datetime64[ns]")
    versions["ann_date"] = pd.to_datetime(versions["ann_date"]).astype("datetime64[ns]")
    events = versions[["symbol", "ann_date"]].drop_duplicates().rename(columns={"ann_date": "event"})
    known = events.merge(versions, on="symbol")
    known = known[known["ann_date"] <= known["event"]].sort_values(
        ["symbol", "event", "end_date", "ann_date"]
    )
    known = known.drop_duplicates(["symbol", "event", "end_date"], keep="last").reset_index(drop=True)
    state = known.assign(symbol=known["symbol"] + "|" + known["event"].astype(str))  # TTM per event
    known["eps_ttm"] = ttm(state, "eps")
    known["revenue_ttm"] = ttm(state, "revenue")
    kind = known["report_type"].astype("object").fillna(known["end_date"].dt.month.map({12: "A"}))
    group = [known["symbol"], known["event"]]
    known["eps_annual"] = known["eps"].where(kind == "A").groupby(group).ffill()
    known["total_shares"] = known["total_shares"].groupby(group).ffill()
    latest = known.groupby(["symbol", "event"]).tail(1)  # the newest period known at the event
    columns = ["symbol", "event", "end_date", "eps_ttm", "eps_annual", "bps", "revenue_ttm", "total_shares"]
    return latest[columns].rename(columns={"event": "ann_date"}).sort_values(["ann_date", "end_date"])


def _ratio(numerator: pd.Series, denominator: pd.Series) -> pd.Series:
    return (numerator / denominator).where(denominator > 0)


def dividend_ttm(
    days: pd.DataFrame, dividends: pd.DataFrame | None, splits: pd.DataFrame | None = None
) -> pd.Series:
    """Cash dividend per share with ex-date in (day - 365 days, day], per row of `days`, each on the
    share basis of the day (a dividend paid before a split is divided by its ratio)."""
    if dividends is None or dividends.empty:
        return pd.Series(np.nan, index=days.index)
    # one datetime precision on both sides: pandas 3 refuses merge_asof between [s] and [us] keys
    div = dividends.assign(ex_date=pd.to_datetime(dividends["ex_date"]).astype("datetime64[ns]"))
    div = div.sort_values("ex_date")
    base = div["cash_per_share"] * cumulative_ratio(div, splits, "ex_date")  # per share before any split
    div["cum"] = base.groupby(div["symbol"]).cumsum()
    cum = div[["symbol", "ex_date", "cum"]]
    trade_date = pd.to_datetime(days["trade_date"]).astype("datetime64[ns]")
    probe = pd.DataFrame(
        {"symbol": days["symbol"], "trade_date": trade_date, "start": trade_date - pd.Timedelta(days=365)}
    )
    probe["_order"] = np.arange(len(probe))
    now = pd.merge_asof(
        probe.sort_values("trade_date"), cum, left_on="trade_date", right_on="ex_date", by="symbol"
    )
    then = pd.merge_asof(
        probe.sort_values("start"),
        cum.rename(columns={"cum": "cum_then"}),
        left_on="start",
        right_on="ex_date",
        by="symbol",
    )
    now = now.sort_values("_order")["cum"].fillna(0).to_numpy()
    then = then.sort_values("_order")["cum_then"].fillna(0).to_numpy()
    return pd.Series((now - then) / cumulative_ratio(probe, splits, "trade_date"), index=days.index)


def derive_valuations(
    bars: pd.DataFrame,
    financials: pd.DataFrame,
    dividends: pd.DataFrame | None = None,
    splits: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Canonical valuation rows (is_derived=True) for every bar with a known close.

    bars: symbol, trade_date, close (as traded that day). financials: canonical financial rows (eps,
    bps, revenue, total_shares, ann_date, end_date). dividends: symbol, ex_date, cash_per_share
    (optional). splits: canonical split rows (optional): each day's per-share figures, share counts
    and dividends are put on that day's share basis (`domain/splits.py`), as its close is.
    """
    days = bars[["symbol", "trade_date", "close"]].dropna(subset=["close"]).copy()
    days["trade_date"] = pd.to_datetime(days["trade_date"])
    days = days.sort_values("trade_date").reset_index(drop=True)
    if financials is None or financials.empty:
        merged = days.assign(
            eps_ttm=np.nan, eps_annual=np.nan, bps=np.nan, revenue_ttm=np.nan, total_shares=np.nan
        )
    else:
        inputs = report_inputs(versions_on_daily_basis(financials, splits))
        days["trade_date"] = days["trade_date"].astype("datetime64[ns]")
        merged = pd.merge_asof(days, inputs, left_on="trade_date", right_on="ann_date", by="symbol")
    close = merged["close"]
    total_mv = close * merged["total_shares"].where(merged["total_shares"] > 0)
    out = pd.DataFrame(
        {
            "symbol": merged["symbol"],
            "trade_date": merged["trade_date"],
            "close": close,
            "total_mv": total_mv,
            "circ_mv": np.nan,
            "pe": _ratio(close, merged["eps_annual"]),
            "pe_ttm": _ratio(close, merged["eps_ttm"]),
            "pb": _ratio(close, merged["bps"]),
            "ps": np.nan,
            "ps_ttm": _ratio(total_mv, merged["revenue_ttm"]),
            "dv_ratio": np.nan,
            "dv_ttm": dividend_ttm(merged, dividends, splits) / close.where(close > 0) * 100,  # no inf at 0
            "turnover_rate": np.nan,
            "is_derived": True,
        }
    )
    if dividends is None or dividends.empty:
        out["dv_ttm"] = np.nan
    return out[F.VALUATION_COLUMNS].sort_values(["symbol", "trade_date"]).reset_index(drop=True)


class DerivedValuationService:
    """Fill daily valuations for symbols whose sources report none (never over reported rows)."""

    def __init__(self, repository: IMarketDataRepository):
        self._repository = repository

    def refresh(self, symbols: list[str]) -> int:
        """Recompute derived rows for `symbols` lacking reported valuations; returns rows written."""
        todo = sorted(set(symbols) - self._repository.symbols_with_reported_valuations(symbols))
        if not todo:
            return 0
        bars = self._repository.bars_frame(todo, date.max)
        if bars.empty:
            return 0
        store = self._repository
        derived = derive_valuations(
            bars, store.financials_frame(todo), store.dividends_frame(todo), store.splits_frame(todo)
        )
        return self._repository.write_batch({"valuations": derived}).get("valuations", 0)
