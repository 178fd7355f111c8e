"""Chart series of the research experts' data, computed in code (pandas/numpy, vectorised).

The charts read the same inputs, the same way, as the snapshots the experts read: prices are
forward-adjusted by the technical snapshot's `adjusted_frame`, valuation percentiles use the
valuation snapshot's 3-year window and rank, growth is `shared.finance.yoy_growth` on year-to-date
figures. Only data up to the analysis date is used. Chart text is ASCII (symbols, not names).
"""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

from stockdesk.research.application.snapshot.financial_snapshot_builder import (
    PERIODS,
    audit_frame,
    period_labels,
    profit_growth,
)
from stockdesk.research.application.snapshot.technical_snapshot_builder import adjusted_frame
from stockdesk.research.application.snapshot.valuation_snapshot_builder import (
    HISTORY_YEARS,
    MIN_HISTORY,
    percentile,
)
from stockdesk.research.domain.dtos.financial import AuditFinanceRecordInput
from stockdesk.research.domain.dtos.technical import PriceBarInput
from stockdesk.research.domain.dtos.valuation import DEDUCTED_PROFIT, NET_PROFIT_FALLBACK, ValuationDailyInput
from stockdesk.shared.charts import Band, ChartPanel, ChartSeries, ChartSpec, Point, ReferenceLine
from stockdesk.shared.finance import period_months, yoy_growth

PRICE_DAYS = 250  # about one trading year
PRICE_MAS = (20, 60, 120)
BANDS = (10, 50, 90)  # percentiles of the valuation window
VALUATIONS = (("pe_ttm", "PE (TTM)"), ("pb", "PB"))
MILLION = 1e6
FULL_WINDOW_SLACK = pd.Timedelta(days=31)  # a window starting within a month of 3 years ago is "3 years"
PROFIT_NAMES = {DEDUCTED_PROFIT: "deducted profit", NET_PROFIT_FALLBACK: "net profit"}  # ASCII chart text


def values(series: pd.Series | np.ndarray, digits: int = 3) -> list[float | None]:
    """Rounded floats with None for gaps: what a JSON chart spec carries."""
    rounded = pd.Series(np.asarray(series, dtype="float64")).round(digits)
    return rounded.astype(object).where(rounded.notna(), None).tolist()


def iso_days(days: pd.Series) -> list[str]:
    return pd.to_datetime(days).dt.strftime("%Y-%m-%d").tolist()


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st ..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _side(price: float, level: float) -> str:
    return "above" if price > level else "below" if price < level else "at"


# ---- price ---------------------------------------------------------------------------------------
def price_chart(symbol: str, bars: list[PriceBarInput], as_of: date) -> ChartSpec | None:
    frame = adjusted_frame(bars, as_of)
    if frame.empty:
        return None
    close = frame["close"]
    # each MA over the whole history first, so the first shown day already has its warm-up
    mas = {p: close.rolling(p, min_periods=p).mean() for p in PRICE_MAS}
    shown = frame.index[-PRICE_DAYS:]
    last, start = float(close.iloc[-1]), float(close.loc[shown[0]])
    levels = [
        f"{_side(last, m.iloc[-1])} MA{p} {m.iloc[-1]:.2f}" for p, m in mas.items() if m.notna().iloc[-1]
    ]
    day = iso_days(frame["trade_date"].iloc[-1:])[0]
    caption = (
        f"Close {last:.2f} on {day}" + (f" is {', '.join(levels)}" if levels else "")
        + f"; {(last / start - 1) * 100:+.1f}% over the {len(shown)} trading days shown"
        + " (forward-adjusted prices; lower panel: daily volume)."
    )  # fmt: skip
    return ChartSpec(
        id="price",
        title=f"{symbol} price, moving averages and volume",
        caption=caption,
        x=iso_days(frame.loc[shown, "trade_date"]),
        panels=[
            ChartPanel(
                y_label="price (fwd-adjusted)",
                height=2.0,
                series=[
                    ChartSeries(name="close", values=values(close.loc[shown]), color="#263238"),
                    *(ChartSeries(name=f"MA{p}", values=values(m.loc[shown])) for p, m in mas.items()),
                ],
            ),
            ChartPanel(
                y_label="volume (mn shares)",
                height=0.8,
                series=[
                    ChartSeries(
                        name="volume",
                        kind="bar",
                        values=values(frame.loc[shown, "volume"] / MILLION),
                        color="#90a4ae",
                    )
                ],
            ),
        ],
    )


# ---- valuation -----------------------------------------------------------------------------------
def _valuation_panel(window: pd.DataFrame, column: str, name: str, x: list[str]) -> tuple[ChartPanel, str]:
    """The metric (only positive values mean something), its percentile band and today's point; and
    the caption's words about it."""
    raw = pd.to_numeric(window[column], errors="coerce").astype("float64")
    valid = raw.where(np.isfinite(raw) & (raw > 0))
    current = float(valid.iloc[-1]) if pd.notna(valid.iloc[-1]) else None
    rank = percentile(window[column], current)
    bands: list[Band] = []
    lines: list[ReferenceLine] = []
    points: list[Point] = []
    if valid.count() >= MIN_HISTORY:
        low, mid, high = np.nanpercentile(valid.to_numpy(), BANDS).round(3)
        bands = [
            Band(label=f"10th-90th pct ({low:.2f}-{high:.2f})", lower=[low] * len(x), upper=[high] * len(x))
        ]
        lines = [ReferenceLine(label="median", value=float(mid), style="median")]
    if current is None:
        words = f"{name} is not meaningful (zero or negative)" if valid.count() else f"{name} has no value"
    else:
        ranked = isinstance(rank, int)
        points = [
            Point(
                label=f"{x[-1]}: {current:.2f} ({f'pct {rank}' if ranked else 'unranked'})",
                x=x[-1],
                y=round(current, 3),
            )
        ]
        words = f"{name} {current:.2f} " + (
            f"is at the {ordinal(rank)} percentile" if ranked else "(too little history to rank)"
        )
    series = [ChartSeries(name=name, values=values(valid))]
    return ChartPanel(y_label=name, series=series, bands=bands, lines=lines, points=points), words


def valuation_chart(symbol: str, dailies: list[ValuationDailyInput], as_of: date) -> ChartSpec | None:
    frame = pd.DataFrame([d.model_dump() for d in dailies], columns=list(ValuationDailyInput.model_fields))
    frame["trade_date"] = pd.to_datetime(frame["trade_date"])
    start, end = pd.Timestamp(as_of) - pd.DateOffset(years=HISTORY_YEARS), pd.Timestamp(as_of)
    window = frame[(frame["trade_date"] > start) & (frame["trade_date"] <= end)]
    window = (
        window.sort_values("trade_date").drop_duplicates("trade_date", keep="last").reset_index(drop=True)
    )
    if window.empty:
        return None
    x = iso_days(window["trade_date"])
    drawn = [_valuation_panel(window, column, name, x) for column, name in VALUATIONS]
    panels = [panel for panel, _ in drawn if any(v is not None for v in panel.series[0].values)]
    if not panels:
        return None
    full = window["trade_date"].iloc[0] <= start + FULL_WINDOW_SLACK
    span = f"{HISTORY_YEARS} years" if full else f"history since {x[0]}"  # a young listing: say so
    return ChartSpec(
        id="valuation",
        title=f"{symbol} valuation, {span}: PE (TTM) and PB",
        caption=f"Against the {span} shown, on {x[-1]}: "
        + "; ".join(words for _, words in drawn)
        + " (shaded: 10th-90th percentile, dotted: median).",
        x=x,
        panels=panels,
    )


# ---- financials ----------------------------------------------------------------------------------
def financial_frame(records: list[AuditFinanceRecordInput]) -> tuple[pd.DataFrame, str]:
    """One row per report period, oldest first, with the auditor's YoY growth and period labels.

    Returns the frame and which profit the growth is of (the auditor's basis).
    """
    frame = audit_frame(records)
    revenue = yoy_growth(frame, "revenue")
    frame["revenue_yoy"] = revenue.where(revenue.notna(), frame["or_yoy"])  # as the auditor reads it
    frame["profit_yoy"], basis = profit_growth(frame, PERIODS)
    frame["period"] = period_labels(frame, period_months(frame))
    return frame, basis


def _pct(value: float, signed: bool = True) -> str:
    return (f"{value:+.1f}%" if signed else f"{value:.1f}%") if pd.notna(value) else "n/a"


def financial_chart(symbol: str, records: list[AuditFinanceRecordInput], as_of: date) -> ChartSpec | None:
    visible = [r for r in records if r.ann_date <= as_of]  # point in time, whatever the caller gave
    if not visible:
        return None
    frame, basis = financial_frame(visible)
    shown, profit = frame.tail(PERIODS), PROFIT_NAMES.get(basis, "profit")
    latest = shown.iloc[-1]
    caption = (
        f"Latest period {latest['period']}: revenue YoY {_pct(latest['revenue_yoy'])}, "
        f"{profit} YoY {_pct(latest['profit_yoy'])}, ROE {_pct(latest['roe'], False)}, "
        f"gross margin {_pct(latest['grossprofit_margin'], False)} "
        "(year-to-date figures, each against the same period a year earlier; Q1/H1/Q3/A = 3/6/9/12 months)."
    )
    growth = _with_data(
        ChartSeries(name="revenue YoY %", kind="bar", values=values(shown["revenue_yoy"], 2)),
        ChartSeries(name=f"{profit} YoY %", kind="bar", values=values(shown["profit_yoy"], 2)),
    )
    returns = _with_data(
        ChartSeries(name="ROE % (YTD)", values=values(shown["roe"], 2)),
        ChartSeries(name="gross margin %", values=values(shown["grossprofit_margin"], 2)),
    )
    zero = [ReferenceLine(label="zero", value=0.0, style="zero")]
    panels = [
        *([ChartPanel(y_label="YoY growth (%)", series=growth, lines=zero)] if growth else []),
        *([ChartPanel(y_label="percent", series=returns)] if returns else []),
    ]
    if not panels:
        return None
    return ChartSpec(
        id="financials",
        title=f"{symbol} growth and returns by report period",
        caption=caption,
        x=shown["period"].tolist(),
        x_kind="category",
        panels=panels,
    )


def _with_data(*series: ChartSeries) -> list[ChartSeries]:
    """Series with at least one value: an empty one would only add a misleading legend entry."""
    return [s for s in series if any(v is not None for v in s.values)]


class ChartSeriesBuilder:
    """The three charts as one object the chart service is given (a test makes one of them fail).
    Each method gives None when there is nothing to draw (no bars, no valuations, no reports)."""

    def price(self, symbol: str, bars: list[PriceBarInput], as_of: date) -> ChartSpec | None:
        """Forward-adjusted close with MA20/60/120 and volume, the last trading year up to `as_of`."""
        return price_chart(symbol, bars, as_of)

    def valuation(self, symbol: str, dailies: list[ValuationDailyInput], as_of: date) -> ChartSpec | None:
        """PE(TTM) and PB over the 3-year percentile window, with 10/50/90 percentiles and today."""
        return valuation_chart(symbol, dailies, as_of)

    def financials(
        self, symbol: str, records: list[AuditFinanceRecordInput], as_of: date
    ) -> ChartSpec | None:
        """Revenue and profit YoY growth, ROE and gross margin per report period."""
        return financial_chart(symbol, records, as_of)
