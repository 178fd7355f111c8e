"""The snapshots' report figures for every symbol at once, from `PanelPeriods`.

Financial (as `FinancialSnapshotBuilder` shows the newest period): the reported ratios; revenue YoY
(the reported or_yoy where revenue gives none); profit YoY of deducted profit when it yields any
growth in the newest 8 periods, else of net profit; cash quality = OCF per share / EPS (EPS > 0).
Valuation (as `ValuationSnapshotBuilder`): growth_rate_avg = mean of the newest 4 YoY growths of
deducted profit, else of net profit; EPS TTM = the latest YTD EPS (an annual is its own TTM) + the
last annual within 380 days before it - the year-earlier YTD, else the latest YTD EPS x 12 / months;
BPS of the newest period; PEG = raw PE TTM / growth (both > 0); Graham = sqrt(22.5 x EPS x BPS)
and its margin over the bounded price, in %.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from stockdesk.research.application.screen.report_panel import PanelPeriods, last_annual
from stockdesk.research.application.screen.rounding import rounded
from stockdesk.research.application.snapshot.financial_snapshot_builder import PERIODS, period_labels
from stockdesk.research.application.snapshot.valuation_snapshot_builder import ANNUALISED, GROWTH_PERIODS
from stockdesk.shared.finance import ANNUAL, ANNUAL_TOLERANCE_DAYS

REPORTED = {
    "roe": "roe",
    "roic": "roic",
    "gross_margin": "grossprofit_margin",
    "net_margin": "netprofit_margin",
    "debt_to_assets": "debt_to_assets",
    "current_ratio": "current_ratio",
    "quick_ratio": "quick_ratio",
}
FIGURES = (
    *REPORTED.values(),
    "revenue",
    "or_yoy",
    "profit_dedt",
    "net_profit",
    "eps",
    "bps",
    "ocfps",
)


def _any_per_symbol(periods: PanelPeriods, mask: np.ndarray) -> np.ndarray:
    return np.bincount(periods.rows[mask], minlength=len(periods.last)) > 0


def profit_yoy(periods: PanelPeriods) -> np.ndarray:
    """Per symbol: the newest period's profit growth of the basis the financial snapshot picks."""
    shown = periods.from_end() < PERIODS
    deducted, net = periods.yoy("profit_dedt"), periods.yoy("net_profit")
    use_deducted = _any_per_symbol(periods, shown & ~np.isnan(deducted))
    use_net = ~use_deducted & _any_per_symbol(periods, shown & ~np.isnan(net))
    return np.where(use_net, periods.latest(net), periods.latest(deducted))


def latest_labels(periods: PanelPeriods) -> np.ndarray:
    """Per symbol: the newest period's label as the financial snapshot names it ("2020Q1")."""
    labels = np.full(len(periods.last), None, dtype=object)
    has = periods.last >= 0
    newest = periods.last[has]
    frame = pd.DataFrame({"end_date": periods.ends[newest], "report_type": periods.report_type[newest]})
    months = pd.Series(periods.months()[newest], index=frame.index)
    labels[has] = period_labels(frame, months).to_numpy(dtype=object)
    return labels


def financial_figures(periods: PanelPeriods) -> dict[str, np.ndarray]:
    figures = periods.figures
    revenue_yoy = periods.yoy("revenue")
    eps = figures["eps"]
    with np.errstate(divide="ignore", invalid="ignore"):
        cash_quality = figures["ocfps"] / np.where(eps > 0, eps, np.nan)
    columns = {
        "latest_period": latest_labels(periods),
        **{name: rounded(periods.latest(figures[column])) for name, column in REPORTED.items()},
        "revenue_yoy": rounded(
            periods.latest(np.where(np.isnan(revenue_yoy), figures["or_yoy"], revenue_yoy))
        ),
        "profit_dedt_yoy": rounded(profit_yoy(periods)),
        "roe_ttm": rounded(ttm_or_annualised(periods, "roe")),
        "cash_quality": rounded(periods.latest(cash_quality)),
    }
    return columns


def growth_average(periods: PanelPeriods) -> tuple[np.ndarray, np.ndarray]:
    """Per symbol: (mean of the newest GROWTH_PERIODS growths, how many), deducted profit first."""
    count = len(periods.last)
    result = (np.full(count, np.nan), np.zeros(count, dtype="int64"))
    for column in ("net_profit", "profit_dedt"):  # the later one wins where it yields any
        growth = periods.yoy(column)
        present = ~np.isnan(growth)
        seen = np.cumsum(present)
        newer = np.where(periods.last >= 0, seen[np.maximum(periods.last, 0)], 0)[periods.rows] - seen
        kept = present & (newer < GROWTH_PERIODS)
        total = np.bincount(periods.rows[kept], weights=growth[kept], minlength=count)
        size = np.bincount(periods.rows[kept], minlength=count)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = total / size
        result = (np.where(size > 0, mean, result[0]), np.where(size > 0, size, result[1]))
    return result


def eps_ttm(periods: PanelPeriods) -> np.ndarray:
    """Per symbol: the newest period's EPS TTM, else its YTD EPS annualised (Q1/H1/Q3)."""
    return ttm_or_annualised(periods, "eps")


def ttm_or_annualised(periods: PanelPeriods, name: str) -> np.ndarray:
    """Per symbol: the newest period's TTM of a year-to-date figure (EPS, ROE), else that YTD
    figure annualised (Q1 x 4, H1 x 2, Q3 x 4/3): the valuation builder's EPS TTM rule."""
    eps = periods.figures[name]
    newest = np.maximum(periods.last, 0)
    annual = last_annual(periods)[newest]
    prior = periods.priors[newest]
    kind = periods.kinds[newest]
    gap = (periods.ends[newest] - periods.ends[np.maximum(annual, 0)]).astype("int64")
    formed = (annual >= 0) & (gap <= ANNUAL_TOLERANCE_DAYS) & (prior >= 0)
    summed = eps[newest] + eps[np.maximum(annual, 0)] - eps[np.maximum(prior, 0)]
    ttm = np.where(kind == ANNUAL, eps[newest], np.where(formed, summed, np.nan))
    months = periods.months()[newest]
    annualisable = ~np.isfinite(ttm) & ~np.isnan(eps[newest]) & np.isin(months, list(ANNUALISED))
    ttm = np.where(annualisable, eps[newest] * 12 / months, ttm)
    return np.where(periods.last >= 0, ttm, np.nan)


def valuation_report_figures(
    periods: PanelPeriods, pe_raw: np.ndarray, pe_shown: np.ndarray, price: np.ndarray
) -> dict[str, np.ndarray]:
    """growth_rate_avg, peg_ratio, eps_ttm, bps and Graham, given each symbol's raw PE TTM, the PE
    TTM and price the snapshot shows (bounded and rounded; NaN for N/A)."""
    growth, size = growth_average(periods)
    eps = eps_ttm(periods)
    bps = periods.latest(periods.figures["bps"])
    with np.errstate(divide="ignore", invalid="ignore"):
        usable = (size > 0) & (growth > 0) & (pe_shown > 0) & (pe_raw != 0)
        peg = np.where(usable, pe_raw / growth, np.nan)
        positive = np.isfinite(eps) & np.isfinite(bps) & (eps > 0) & (bps > 0)
        value = np.where(positive, np.sqrt(22.5 * eps * bps), np.nan)
        margin = np.where(price > 0, (value - price) / price * 100, np.nan)
    return {
        "growth_rate_avg": rounded(np.where(size > 0, growth, np.nan)),
        "peg_ratio": rounded(peg),
        "eps_ttm": rounded(eps, 4),
        "bps": rounded(bps, 4),
        "graham_intrinsic_val": rounded(value),
        "graham_safety_margin": rounded(margin, 1),
    }
