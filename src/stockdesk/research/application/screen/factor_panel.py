"""The factor library's raw values for many symbols and dates, with one read per table.

Bars, valuations and reports are read once for the whole span; then:
- price factors (returns, momentum, volatility, volume change) come from one wide matrix of
  adjusted closes and volumes (a row per trading day of the symbols' joint calendar, a column per
  symbol), with rolling windows that only look back, read at each date's last calendar day;
- valuation, quality and growth factors come from the screen's own figure functions evaluated at
  each date (`valuation_figures`, `visible_periods`, `financial_figures`), which keep only the rows
  dated (reports: announced) by that date, so they equal the screen's and the snapshots' figures.

Adjusted close = raw close x adj_factor (the factor forward-filled per symbol, 1.0 before the
first): ratios of adjusted closes are the total returns the symbol had. A day without a traded bar
(suspension, or the other market's holiday) repeats the last close and counts volume 0. A symbol
whose last traded bar is more than STALE_DAYS calendar rows before the date, or that has not the
rows a window needs, has no price factor there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Any

import numpy as np
import pandas as pd

from stockdesk.data_engineering.application import GetMarketFramesUseCase, ListSecuritiesUseCase
from stockdesk.research.application.screen.long_rows import as_categories
from stockdesk.research.application.screen.panel import VALUATION_COLUMNS
from stockdesk.research.application.screen.report_figures import FIGURES, financial_figures
from stockdesk.research.application.screen.report_panel import visible_periods
from stockdesk.research.application.screen.valuation_figures import valuation_figures
from stockdesk.research.application.stock_data import BAR_DAYS, VALUATION_DAYS
from stockdesk.research.domain.dtos.factors import FACTOR_NAMES

STALE_DAYS = 20
REPORTED_FACTORS = (
    "roe_ttm",
    "gross_margin",
    "cash_quality",
    "debt_to_assets",
    "revenue_yoy",
    "profit_dedt_yoy",
)
YEAR_DAYS = 250


class FactorPanelBuilder:
    """The factor library's raw values over data_engineering's bulk frames."""

    def __init__(self, securities: ListSecuritiesUseCase, frames: GetMarketFramesUseCase):
        self._securities = securities
        self._frames = frames

    def factors(self, symbols: Sequence[str], dates: Sequence[date]) -> pd.DataFrame:
        """Long frame: date (Timestamp), symbol, market, then every factor of `FACTOR_NAMES` as of
        that date (NaN where its inputs are missing); symbols the store does not hold are left out."""
        known = {s.symbol: s for s in self._securities.execute()}
        wanted = [s for s in dict.fromkeys(symbols) if s in known]
        days = sorted(set(dates))
        columns = ["date", "symbol", "market", *FACTOR_NAMES]
        if not wanted or not days:
            return pd.DataFrame(columns=columns)
        first, last = days[0], days[-1]
        bars = self._frames.bars(wanted, first - timedelta(days=BAR_DAYS), last)
        valuations = self._frames.valuations(wanted, first - timedelta(days=VALUATION_DAYS), last)
        financials = self._frames.financial_versions(wanted)
        financials = financials[financials["ann_date"] <= pd.Timestamp(last)]
        valuations = as_categories(
            as_floats(valuations[[c for c in VALUATION_COLUMNS if c in valuations]], VALUATION_COLUMNS[2:]),
            wanted,
        )
        financials = as_categories(
            as_floats(financials.drop(columns=["extra"], errors="ignore"), FIGURES), wanted
        )
        index = pd.Index(wanted)
        prices = price_factors(bars, index, days)
        markets = np.array([known[s].market for s in wanted], dtype=object)
        # the reports visible by a day are those announced by it: the same count, the same figures
        announced = np.sort(pd.to_datetime(financials["ann_date"]).to_numpy(dtype="datetime64[D]"))
        parts, seen, reported = [], -1, None
        for position, day in enumerate(days):
            visible = int(np.searchsorted(announced, np.datetime64(day, "D"), side="right"))
            if visible != seen or reported is None:
                seen, reported = visible, reported_factors(financials, index, day)
            frame = report_factors(valuations, reported, index, day)
            for name, values in prices.items():
                frame[name] = values[position]
            frame.insert(0, "market", markets)
            frame.insert(0, "symbol", wanted)
            frame.insert(0, "date", pd.Timestamp(day))
            parts.append(frame)
        return pd.concat(parts, ignore_index=True)[columns]


def as_floats(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """`columns` (those present) as float64 once, so the per-date figure functions read them as is
    (they convert a column on every call otherwise: most of a many-date run's time)."""
    present = [c for c in columns if c in frame and frame[c].dtype != np.float64]
    return frame.assign(**{c: pd.to_numeric(frame[c], errors="coerce").astype("float64") for c in present})


def reported_factors(financials: pd.DataFrame, symbols: pd.Index, day: date) -> Mapping[str, Any]:
    """The quality and growth figures of the reports announced by `day` (NaN without any)."""
    periods = visible_periods(financials, symbols, day, FIGURES)
    blank = np.full(len(symbols), np.nan)
    return financial_figures(periods) if len(periods.rows) else dict.fromkeys(REPORTED_FACTORS, blank)


def report_factors(
    valuations: pd.DataFrame, reported: Mapping[str, Any], symbols: pd.Index, day: date
) -> pd.DataFrame:
    """Valuation, quality and growth factors of every symbol as of `day` (the screen's figures);
    `reported`: `reported_factors` of the same day (shared by days without a new report)."""
    value = valuation_figures(valuations, symbols, day)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = {
            "size": np.log(value["total_mv"].to_numpy(dtype=float)),
            "earnings_yield": 1.0 / value["pe_ttm"].to_numpy(dtype=float),
            "book_yield": 1.0 / value["pb"].to_numpy(dtype=float),
            "sales_yield": 1.0 / value["ps_ttm"].to_numpy(dtype=float),
            "dividend_yield": value["dv_ratio"].to_numpy(dtype=float),
            "pe_percentile": value["pe_percentile"].to_numpy(dtype=float),
            "pb_percentile": value["pb_percentile"].to_numpy(dtype=float),
        }
    for name in REPORTED_FACTORS:
        out[name] = np.asarray(reported[name], dtype=float)
    frame = pd.DataFrame(out)
    return frame.replace([np.inf, -np.inf], np.nan)


def price_factors(bars: pd.DataFrame, symbols: pd.Index, days: Sequence[date]) -> dict[str, np.ndarray]:
    """Per price factor: a (len(days), len(symbols)) array read at each day's last calendar row."""
    shape = (len(days), len(symbols))
    names = ("ret_5d", "ret_20d", "mom_12_1", "vol_20d", "vol_60d", "volume_change")
    if bars.empty:
        return {name: np.full(shape, np.nan) for name in names}
    close, volume, traded = wide_matrices(bars, symbols)
    calendar = close.index.to_numpy()
    rows = (
        np.searchsorted(calendar, np.array([np.datetime64(d) for d in days], dtype=calendar.dtype), "right")
        - 1
    )
    log_close = np.log(close)
    returns = log_close.diff()
    with np.errstate(divide="ignore", invalid="ignore"):
        frames = {
            "ret_5d": close / close.shift(5) - 1,
            "ret_20d": close / close.shift(20) - 1,
            "mom_12_1": close.shift(20) / close.shift(YEAR_DAYS) - 1,
            "vol_20d": returns.rolling(20).std() * np.sqrt(YEAR_DAYS),
            "vol_60d": returns.rolling(60).std() * np.sqrt(YEAR_DAYS),
            "volume_change": np.log(volume.rolling(20).mean() / volume.rolling(120).mean()),
        }
    row_numbers = np.arange(len(calendar))[:, None]
    last_traded = pd.DataFrame(np.where(traded, row_numbers, np.nan)).ffill().to_numpy()
    stale = (row_numbers - np.nan_to_num(last_traded, nan=-1e9)) > STALE_DAYS
    out = {}
    for name, frame in frames.items():
        values = np.where(stale, np.nan, frame.to_numpy(dtype=float))
        values[~np.isfinite(values)] = np.nan
        picked = np.full(shape, np.nan)
        found = rows >= 0
        picked[found] = values[rows[found]]
        out[name] = picked
    return out


def wide_matrices(bars: pd.DataFrame, symbols: pd.Index) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """(adjusted closes forward-filled, volumes with 0 on days without a traded bar, traded mask) on
    the joint calendar of the days any symbol traded."""
    frame = bars[bars["symbol"].isin(symbols)].copy()
    frame["trade_date"] = pd.to_datetime(frame["trade_date"])
    volume = pd.to_numeric(frame["volume"], errors="coerce")
    close = pd.to_numeric(frame["close"], errors="coerce")
    factor = pd.to_numeric(frame.get("adj_factor", pd.Series(np.nan, index=frame.index)), errors="coerce")
    frame = frame.assign(
        factor=factor.groupby(frame["symbol"]).ffill().fillna(1.0),
        traded=(volume > 0) & (close > 0),
        volume=volume.fillna(0.0),
        close=close,
    )
    frame = frame[frame["traded"]]
    frame["adjusted"] = frame["close"] * frame["factor"]
    adjusted = frame.pivot_table(index="trade_date", columns="symbol", values="adjusted", aggfunc="last")
    adjusted = adjusted.reindex(columns=symbols).sort_index()
    volumes = frame.pivot_table(index="trade_date", columns="symbol", values="volume", aggfunc="last")
    volumes = volumes.reindex(index=adjusted.index, columns=symbols)
    traded = adjusted.notna().to_numpy()
    return adjusted.ffill(), volumes.fillna(0.0), traded
