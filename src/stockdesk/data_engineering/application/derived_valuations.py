"""Daily valuation series derived from real inputs where a source reports none (SEC + prices, samples).

PE-TTM = close / EPS-TTM, PB = close / BPS, total_mv = close x shares, PS-TTM = total_mv / revenue TTM,
PE (static) = close / last annual EPS, dividend yield TTM = cash dividends per share with ex-date in
the last 365 days / close x 100. Each trading day uses only reports announced on or before it
(merge_asof on ann_date), so derived rows carry no look-ahead. Ratios with a non-positive
denominator are left empty rather than negative or infinite. Rows are flagged `is_derived`.
"""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

from stockdesk.data_engineering.domain import frames as F
from stockdesk.data_engineering.domain.ports import IMarketDataRepository
from stockdesk.shared.finance import ttm


def _latest_versions(financials: pd.DataFrame) -> pd.DataFrame:
    reports = financials.copy()
    reports["end_date"] = pd.to_datetime(reports["end_date"])
    reports["ann_date"] = pd.to_datetime(reports["ann_date"])
    return reports.sort_values(["symbol", "end_date", "ann_date"]).drop_duplicates(
        ["symbol", "end_date"], keep="last"
    )


def report_inputs(financials: pd.DataFrame) -> pd.DataFrame:
    """Per announced report: the TTM and point values a valuation needs, keyed by ann_date."""
    reports = _latest_versions(financials)
    for column in ("eps", "bps", "revenue", "total_shares"):
        if column not in reports.columns:
            reports[column] = np.nan
    reports["eps_ttm"] = ttm(reports, "eps")
    reports["revenue_ttm"] = ttm(reports, "revenue")
    annual_eps = reports["eps"].where(reports["end_date"].dt.month == 12)
    reports["eps_annual"] = annual_eps.groupby(reports["symbol"]).ffill()
    reports["total_shares"] = reports.groupby("symbol")["total_shares"].ffill()
    columns = [
        "symbol",
        "ann_date",
        "end_date",
        "eps_ttm",
        "eps_annual",
        "bps",
        "revenue_ttm",
        "total_shares",
    ]
    return reports[columns].sort_values(["ann_date", "end_date"])


def _ratio(numerator: pd.Series, denominator: pd.Series) -> pd.Series:
    return (numerator / denominator).where(denominator > 0)


def dividend_ttm(days: pd.DataFrame, dividends: pd.DataFrame | None) -> pd.Series:
    """Cash dividend per share with ex-date in (day - 365 days, day], per row of `days`."""
    if dividends is None or dividends.empty:
        return pd.Series(np.nan, index=days.index)
    div = dividends.assign(ex_date=pd.to_datetime(dividends["ex_date"])).sort_values("ex_date")
    div["cum"] = div.groupby("symbol")["cash_per_share"].cumsum()
    cum = div[["symbol", "ex_date", "cum"]]
    probe = days[["symbol", "trade_date"]].assign(start=days["trade_date"] - pd.Timedelta(days=365))
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
    return pd.Series(now - then, index=days.index)


def derive_valuations(
    bars: pd.DataFrame, financials: pd.DataFrame, dividends: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Canonical valuation rows (is_derived=True) for every bar with a known close.

    bars: symbol, trade_date, close. financials: canonical financial rows (eps, bps, revenue,
    total_shares, ann_date, end_date). dividends: symbol, ex_date, cash_per_share (optional).
    """
    days = bars[["symbol", "trade_date", "close"]].dropna(subset=["close"]).copy()
    days["trade_date"] = pd.to_datetime(days["trade_date"])
    days = days.sort_values("trade_date").reset_index(drop=True)
    if financials is None or financials.empty:
        merged = days.assign(
            eps_ttm=np.nan, eps_annual=np.nan, bps=np.nan, revenue_ttm=np.nan, total_shares=np.nan
        )
    else:
        inputs = report_inputs(financials)
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
            "dv_ttm": dividend_ttm(merged, dividends) / close * 100,
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
        derived = derive_valuations(
            bars, self._repository.financials_frame(todo), self._repository.dividends_frame(todo)
        )
        return self._repository.write_batch({"valuations": derived}).get("valuations", 0)
