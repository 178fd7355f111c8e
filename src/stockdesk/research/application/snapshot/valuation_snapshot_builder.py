"""Valuation snapshot: percentiles, PEG, Graham number, margins, computed in code (vectorised).

Definitions (issue #4, fixing the spec's looser wording):
- percentile window: trading days in (as_of - 3 calendar years, as_of]; valid = present and > 0;
  fewer than 60 valid -> N/A; rank = count(valid <= current); percentile = round-half-up(rank / n * 100).
- growth_rate_avg: mean of the 4 most recent YoY growths of profit_dedt (each period against the same
  period a year earlier, year-to-date vs year-to-date), skipping a missing or zero prior. "A year
  earlier" is the report of the same type (Q1/H1/Q3/A) ending within 20 days of a year before
  (US 52/53-week years). Basis, per snapshot: profit_dedt when it yields at least one growth, else
  net_profit (net income attributable to the parent; SEC filings have no deducted profit), named in
  growth_basis.
- PEG = pe_ttm / growth_rate_avg; N/A when growth <= 0 or pe_ttm <= 0.
- Graham = sqrt(22.5 x EPS x BPS) with EPS = TTM (latest YTD + last annual - same period last year);
  where that cannot be formed (annual or year-earlier report missing), the latest YTD EPS annualised
  (x 12 / months covered: Q1 x4, H1 x2, Q3 x4/3), named in eps_basis. Report types come from
  report_type (US fiscal years end in any month), else from the end month.
- gross margin trend: latest period vs the same period a year earlier, in percentage points.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np
import pandas as pd

from stockdesk.research.application.snapshot.highlights import valuation_highlights
from stockdesk.research.application.snapshot.report_periods import Columns, ReportPeriods, report_periods
from stockdesk.research.domain.dtos.valuation import (
    DEDUCTED_PROFIT,
    EPS_TTM,
    NA,
    NET_PROFIT_FALLBACK,
    FinanceRecordInput,
    Num,
    StockOverviewInput,
    ValuationDailyInput,
    ValuationSnapshotDTO,
)
from stockdesk.shared.finance import MONTHS_BY_KIND, round_half_up

logger = logging.getLogger(__name__)

MIN_HISTORY = 60
HISTORY_YEARS = 3
GROWTH_PERIODS = 4
YI = 1e8  # 亿
GROWTH_BASES = (("profit_dedt", DEDUCTED_PROFIT), ("net_profit", NET_PROFIT_FALLBACK))  # first that yields
FIGURES = (
    "eps",
    "bps",
    "roe",
    "grossprofit_margin",
    "netprofit_margin",
    "debt_to_assets",
    "profit_dedt",
    "net_profit",
)  # what the valuation reads of the reports
ANNUALISED = {3: "年化，Q1 × 4", 6: "年化，H1 × 2", 9: "年化，Q3 × 4/3"}

# Sanity bounds: a value outside becomes N/A with a WARNING naming field, value and symbol.
BOUNDS: dict[str, tuple[float, float]] = {
    "current_price": (0.0, 1e6),
    "total_mv": (0.0, 1e15),
    "pe_ttm": (0.0, 5000.0),
    "pb": (0.0, 500.0),
    "ps_ttm": (0.0, 1000.0),
    "dv_ratio": (0.0, 100.0),
    "gross_margin": (-1000.0, 100.0),
    "net_margin": (-1000.0, 100.0),
    "roe": (-1000.0, 1000.0),
    "debt_to_assets": (0.0, 1000.0),
}


def bounded(field: str, value: float | None, symbol: str, digits: int = 2) -> Num:
    """Rounded value, or N/A when missing or outside its sanity bounds (logged)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return NA
    low, high = BOUNDS[field]
    if not low < value <= high:
        logger.warning(
            "valuation snapshot: %s=%r out of range (%s, %s] for %s -> N/A", field, value, low, high, symbol
        )
        return NA
    return round_half_up(value, digits)


def percentile(series: pd.Series, current: float | None) -> Num:
    """Percentile rank of `current` within the valid (positive) values of `series`."""
    return percentile_of(pd.to_numeric(series, errors="coerce").to_numpy(dtype="float64"), current)


def percentile_of(values: np.ndarray, current: float | None) -> Num:
    """The same over a float array (the evaluation's batch path slices one per date)."""
    valid = values[np.isfinite(values) & (values > 0)]
    if len(valid) < MIN_HISTORY or current is None or not np.isfinite(current) or current <= 0:
        return NA
    rank = int(np.count_nonzero(valid <= current))
    return int(round_half_up(rank / len(valid) * 100))


def margin_change(latest: float, prior: float) -> str:
    """The trend words for two margins (either may be NaN)."""
    if pd.isna(latest) or pd.isna(prior):
        return NA
    change = round_half_up(float(latest) - float(prior), 1)
    if change > 0:
        return f"同比上升 {change:.1f}%"
    if change < 0:
        return f"同比下降 {abs(change):.1f}%"
    return "持平"


def peg_ratio(basis: RecordFigures, pe_ttm: float | None, bounded_pe: Num) -> Num:
    """PE TTM / average growth, from unrounded inputs; N/A unless both are positive."""
    growth = basis.growth
    if len(basis.recent) and growth > 0 and isinstance(bounded_pe, float) and bounded_pe > 0 and pe_ttm:
        return round_half_up(pe_ttm / growth, 2)
    return NA


def graham(basis: RecordFigures, price: Num) -> tuple[Num, Num]:
    """(Graham number, safety margin in % of the price); N/A without positive EPS and BPS."""
    eps_ttm, bps = basis.eps_ttm, basis.bps
    if not (np.isfinite(eps_ttm) and np.isfinite(bps) and eps_ttm > 0 and bps > 0):
        return NA, NA
    value = math.sqrt(22.5 * eps_ttm * bps)
    margin: Num = NA
    if isinstance(price, float) and price > 0:
        margin = round_half_up((value - price) / price * 100, 1)
    return round_half_up(value, 2), margin


@dataclass(frozen=True)
class RecordFigures:
    """What the reports announced by a date give the valuation: it changes only on announcements.

    The one implementation of the valuation's report rules (issue 20): the snapshot builder reads it
    from the records, the evaluation's batch path (`rules_fields`) from stored rows in columns."""

    recent: np.ndarray
    """the latest GROWTH_PERIODS YoY growths of the growth basis"""
    growth_basis: str
    eps_ttm: float
    """EPS TTM, or where that cannot be formed the latest YTD EPS annualised (eps_basis says which)"""
    eps_basis: str
    bps: float
    latest: dict[str, float | None] | None
    """the newest period's figures (None without reports)"""
    latest_end: date | None
    margin_trend: str

    @property
    def growth(self) -> float:
        return float(np.mean(self.recent)) if len(self.recent) else float("nan")


def record_figures(finance: Sequence[FinanceRecordInput] | Columns) -> RecordFigures:
    """From the records, or from rows in their columns (see `report_periods`)."""
    return figures_of(report_periods(finance, FIGURES))


def figures_of(periods: ReportPeriods) -> RecordFigures:
    """Growth (deducted profit if it yields any growth, else net profit), EPS TTM (else annualised),
    BPS, the latest period's ratios and the gross margin against a year earlier."""
    if not len(periods):
        nan = float("nan")
        return RecordFigures(np.empty(0), DEDUCTED_PROFIT, nan, EPS_TTM, nan, None, None, NA)
    recent, growth_basis = np.empty(0), DEDUCTED_PROFIT
    for column, basis in GROWTH_BASES:
        growth = periods.yoy(column)
        kept = growth[~np.isnan(growth)][-GROWTH_PERIODS:]
        if len(kept):
            recent, growth_basis = kept, basis
            break

    last = len(periods) - 1
    figures = periods.figures
    eps = figures["eps"]
    eps_ttm, eps_basis = periods.last_ttm("eps"), EPS_TTM
    kind = periods.kinds[last]
    months = MONTHS_BY_KIND.get(kind) if kind is not None else None
    if not np.isfinite(eps_ttm) and not np.isnan(eps[last]) and months in ANNUALISED:
        eps_ttm, eps_basis = float(eps[last]) * 12 / months, ANNUALISED[months]

    margins, prior = figures["grossprofit_margin"], int(periods.priors[last])
    trend = margin_change(margins[last], margins[prior]) if prior >= 0 else NA
    latest = {name: None if np.isnan(v) else float(v) for name, v in ((n, figures[n][last]) for n in FIGURES)}
    latest_end = periods.ends[last].item()  # datetime64[D] -> date
    return RecordFigures(
        recent, growth_basis, eps_ttm, eps_basis, float(figures["bps"][last]), latest, latest_end, trend
    )


def _window(dailies: list[ValuationDailyInput], as_of: date) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """PE, PB and PS of the trading days in (as_of - HISTORY_YEARS years, as_of], NaN where missing."""
    end = pd.Timestamp(as_of)
    first, last = (end - pd.DateOffset(years=HISTORY_YEARS)).date(), end.date()
    days = [d for d in dailies if first < d.trade_date <= last]
    return (
        np.array([d.pe_ttm for d in days], dtype="float64"),
        np.array([d.pb for d in days], dtype="float64"),
        np.array([d.ps_ttm for d in days], dtype="float64"),
    )


class ValuationSnapshotBuilder:
    """Per symbol in plain numpy/Python (no frames): one analysis builds one, the evaluation thousands."""

    def build(
        self,
        overview: StockOverviewInput,
        dailies: list[ValuationDailyInput],
        finance: list[FinanceRecordInput],
        as_of: date,
    ) -> ValuationSnapshotDTO:
        symbol = overview.symbol
        pe_window, pb_window, ps_window = _window(dailies, as_of)

        basis = record_figures(finance)
        latest, recent, growth_basis = basis.latest or {}, basis.recent, basis.growth_basis
        growth_avg: Num = round_half_up(basis.growth, 2) if len(recent) else NA
        pe_ttm = bounded("pe_ttm", overview.pe_ttm, symbol)
        peg = peg_ratio(basis, overview.pe_ttm, pe_ttm)
        eps_ttm, eps_basis, bps = basis.eps_ttm, basis.eps_basis, basis.bps
        price = bounded("current_price", overview.close, symbol)
        graham_value, margin = graham(basis, price)

        total_mv = bounded("total_mv", overview.total_mv, symbol)
        pe_pct, pb_pct = percentile_of(pe_window, overview.pe_ttm), percentile_of(pb_window, overview.pb)
        return ValuationSnapshotDTO(
            symbol=symbol,
            stock_name=overview.stock_name,
            industry=overview.industry or NA,
            as_of=as_of,
            trade_date=overview.trade_date.isoformat() if overview.trade_date else NA,
            current_price=price,
            total_mv=round_half_up(total_mv / YI, 2) if isinstance(total_mv, float) else NA,
            currency=overview.currency or NA,
            pe_ttm=pe_ttm,
            pb=bounded("pb", overview.pb, symbol),
            ps_ttm=bounded("ps_ttm", overview.ps_ttm, symbol),
            dv_ratio=bounded("dv_ratio", overview.dv_ratio, symbol),
            pe_percentile=pe_pct,
            pb_percentile=pb_pct,
            ps_percentile=percentile_of(ps_window, overview.ps_ttm),
            history_days=len(pe_window),
            growth_rate_avg=growth_avg,
            growth_periods=len(recent),
            growth_basis=growth_basis,
            peg_ratio=peg,
            eps_ttm=round_half_up(eps_ttm, 4) if np.isfinite(eps_ttm) else NA,
            eps_basis=eps_basis,
            bps=round_half_up(bps, 4) if np.isfinite(bps) else NA,
            graham_intrinsic_val=graham_value,
            graham_safety_margin=margin,
            gross_margin=bounded("gross_margin", latest.get("grossprofit_margin"), symbol),
            gross_margin_trend=basis.margin_trend,
            roe=bounded("roe", latest.get("roe"), symbol),
            net_margin=bounded("net_margin", latest.get("netprofit_margin"), symbol),
            debt_to_assets=bounded("debt_to_assets", latest.get("debt_to_assets"), symbol),
            latest_report_period=basis.latest_end.isoformat() if basis.latest_end is not None else NA,
            highlights=valuation_highlights(pe_pct, pb_pct, margin, growth_avg, growth_basis),
        )
