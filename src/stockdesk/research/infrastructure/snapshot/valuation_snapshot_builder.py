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
from dataclasses import dataclass
from datetime import date

import numpy as np
import pandas as pd

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
from stockdesk.research.domain.ports.valuation import IValuationSnapshotBuilder
from stockdesk.research.infrastructure.snapshot.highlights import valuation_highlights
from stockdesk.shared.finance import by_period, period_months, prior_position, round_half_up, ttm, yoy_growth

logger = logging.getLogger(__name__)

MIN_HISTORY = 60
HISTORY_YEARS = 3
GROWTH_PERIODS = 4
YI = 1e8  # 亿
GROWTH_BASES = (("profit_dedt", DEDUCTED_PROFIT), ("net_profit", NET_PROFIT_FALLBACK))  # first that yields
FINANCE_COLUMNS = list(FinanceRecordInput.model_fields)
TEXT_COLUMNS = ("ann_date", "report_type")  # the other columns but end_date are figures
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


def _finance_frame(finance: list[FinanceRecordInput] | pd.DataFrame) -> pd.DataFrame:
    """One row per period end (the last given), oldest first, figures as floats.

    From the records, or from rows already in their columns (the evaluation's batch path takes them
    from the stored versions and skips building records).
    """
    rows = finance
    if not isinstance(rows, pd.DataFrame):
        rows = pd.DataFrame([f.model_dump() for f in finance], columns=FINANCE_COLUMNS)
    return by_period(rows, FINANCE_COLUMNS, text=TEXT_COLUMNS)


def growth_average(frame: pd.DataFrame) -> tuple[pd.Series, str]:
    """The latest GROWTH_PERIODS YoY growths and their basis: deducted profit if it yields any, else net."""
    for column, basis in GROWTH_BASES:
        growth = yoy_growth(frame, column)
        kept = np.flatnonzero(~np.isnan(growth.to_numpy()))[-GROWTH_PERIODS:]
        if len(kept):
            return growth.iloc[kept], basis
    return pd.Series(dtype="float64"), DEDUCTED_PROFIT


def eps_estimate(frame: pd.DataFrame) -> tuple[float, str]:
    """Latest EPS TTM; where it cannot be formed, the latest YTD EPS annualised (labelled)."""
    if frame.empty:
        return float("nan"), EPS_TTM
    eps_ttm = float(ttm(frame, "eps").iloc[-1])
    months = float(period_months(frame).iloc[-1])
    latest_eps = frame["eps"].iloc[-1]
    if np.isfinite(eps_ttm) or pd.isna(latest_eps) or months not in ANNUALISED:
        return eps_ttm, EPS_TTM
    return float(latest_eps) * 12 / months, ANNUALISED[int(months)]


def gross_margin_trend(frame: pd.DataFrame) -> str:
    """ "同比上升 x%" / "同比下降 x%" / "持平" (percentage points), N/A without a year-earlier margin."""
    if frame.empty:
        return NA
    latest = frame["grossprofit_margin"].iloc[-1]
    prior_at = int(prior_position(frame)[-1])
    prior = frame["grossprofit_margin"].iloc[prior_at] if prior_at >= 0 else float("nan")
    if pd.isna(latest) or pd.isna(prior):
        return NA
    change = round_half_up(float(latest) - float(prior), 1)
    if change > 0:
        return f"同比上升 {change:.1f}%"
    if change < 0:
        return f"同比下降 {abs(change):.1f}%"
    return "持平"


@dataclass(frozen=True)
class FinanceBasis:
    """What the reports announced by a date give the valuation: it changes only on announcements."""

    recent: pd.Series
    growth_basis: str
    eps_ttm: float
    eps_basis: str
    bps: float
    frame: pd.DataFrame

    @property
    def growth(self) -> float:
        return float(self.recent.mean()) if len(self.recent) else float("nan")

    @property
    def latest(self) -> pd.Series | None:
        """The newest period's row; None without reports (read where needed: a row costs more than
        the numbers above)."""
        return self.frame.iloc[-1] if len(self.frame) else None


def finance_basis(finance: list[FinanceRecordInput] | pd.DataFrame) -> FinanceBasis:
    """From the records, or from rows in their columns (see `_finance_frame`)."""
    fin = _finance_frame(finance)
    recent, growth_basis = growth_average(fin)
    eps_ttm, eps_basis = eps_estimate(fin)
    bps = fin["bps"].to_numpy()[-1] if len(fin) else float("nan")
    return FinanceBasis(recent, growth_basis, eps_ttm, eps_basis, float(bps), fin)


def peg_ratio(basis: FinanceBasis, pe_ttm: float | None, bounded_pe: Num) -> Num:
    """PE TTM / average growth, from unrounded inputs; N/A unless both are positive."""
    growth = basis.growth
    if len(basis.recent) and growth > 0 and isinstance(bounded_pe, float) and bounded_pe > 0 and pe_ttm:
        return round_half_up(pe_ttm / growth, 2)
    return NA


def graham(basis: FinanceBasis, price: Num) -> tuple[Num, Num]:
    """(Graham number, safety margin in % of the price); N/A without positive EPS and BPS."""
    eps_ttm, bps = basis.eps_ttm, basis.bps
    if not (np.isfinite(eps_ttm) and np.isfinite(bps) and eps_ttm > 0 and bps > 0):
        return NA, NA
    value = math.sqrt(22.5 * eps_ttm * bps)
    margin: Num = NA
    if isinstance(price, float) and price > 0:
        margin = round_half_up((value - price) / price * 100, 1)
    return round_half_up(value, 2), margin


class ValuationSnapshotBuilder(IValuationSnapshotBuilder):
    def build(
        self,
        overview: StockOverviewInput,
        dailies: list[ValuationDailyInput],
        finance: list[FinanceRecordInput],
        as_of: date,
    ) -> ValuationSnapshotDTO:
        symbol = overview.symbol
        history = pd.DataFrame(
            [d.model_dump() for d in dailies], columns=list(ValuationDailyInput.model_fields)
        )
        history["trade_date"] = pd.to_datetime(history["trade_date"])
        end = pd.Timestamp(as_of)
        window = history[
            (history["trade_date"] > end - pd.DateOffset(years=HISTORY_YEARS))
            & (history["trade_date"] <= end)
        ]

        basis = finance_basis(finance)
        latest, recent, growth_basis = basis.latest, basis.recent, basis.growth_basis
        growth_avg: Num = round_half_up(basis.growth, 2) if len(recent) else NA
        pe_ttm = bounded("pe_ttm", overview.pe_ttm, symbol)
        peg = peg_ratio(basis, overview.pe_ttm, pe_ttm)
        eps_ttm, eps_basis, bps = basis.eps_ttm, basis.eps_basis, basis.bps
        price = bounded("current_price", overview.close, symbol)
        graham_value, margin = graham(basis, price)

        total_mv = bounded("total_mv", overview.total_mv, symbol)
        pe_pct, pb_pct = percentile(window["pe_ttm"], overview.pe_ttm), percentile(window["pb"], overview.pb)
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
            ps_percentile=percentile(window["ps_ttm"], overview.ps_ttm),
            history_days=len(window),
            growth_rate_avg=growth_avg,
            growth_periods=len(recent),
            growth_basis=growth_basis,
            peg_ratio=peg,
            eps_ttm=round_half_up(eps_ttm, 4) if np.isfinite(eps_ttm) else NA,
            eps_basis=eps_basis,
            bps=round_half_up(bps, 4) if np.isfinite(bps) else NA,
            graham_intrinsic_val=graham_value,
            graham_safety_margin=margin,
            gross_margin=bounded("gross_margin", _get(latest, "grossprofit_margin"), symbol),
            gross_margin_trend=gross_margin_trend(basis.frame),
            roe=bounded("roe", _get(latest, "roe"), symbol),
            net_margin=bounded("net_margin", _get(latest, "netprofit_margin"), symbol),
            debt_to_assets=bounded("debt_to_assets", _get(latest, "debt_to_assets"), symbol),
            latest_report_period=latest["end_date"].date().isoformat() if latest is not None else NA,
            highlights=valuation_highlights(pe_pct, pb_pct, margin, growth_avg, growth_basis),
        )


def _get(row: pd.Series | None, column: str) -> float | None:
    if row is None or pd.isna(row[column]):
        return None
    return float(row[column])
