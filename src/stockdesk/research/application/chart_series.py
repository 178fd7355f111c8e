"""Chart series of the research experts' data, computed in code (pandas/numpy, vectorised).

The charts read the same inputs, the same way, as the snapshots the experts read: prices are
forward-adjusted by the technical snapshot's `adjusted_frame`, valuation percentiles use the
valuation snapshot's 3-year window and rank, growth is `shared.finance.yoy_growth` on year-to-date
figures. Only data up to the analysis date is used. Chart text is ASCII English (symbols, not
names), drawn into the report files; each text's other languages ride in the spec's `i18n` table
(`shared.charts.ChartWords`, the catalogue's `chart.*`), which a page shows in its own language.
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
from stockdesk.shared.charts import Band, ChartPanel, ChartSeries, ChartSpec, ChartWords, Point, ReferenceLine
from stockdesk.shared.finance import period_months, yoy_growth
from stockdesk.shared.wording import say

PRICE_DAYS = 250  # about one trading year
PRICE_MAS = (20, 60, 120)
BANDS = (10, 50, 90)  # percentiles of the valuation window
VALUATIONS = (("pe_ttm", "PE (TTM)"), ("pb", "PB"))
SHOWN_NAME = {"PE (TTM)": {"en": "PE (TTM)", "zh": "PE（TTM）"}, "PB": {"en": "PB", "zh": "PB"}}
MILLION = 1e6
FULL_WINDOW_SLACK = pd.Timedelta(days=31)  # a window starting within a month of 3 years ago is "3 years"
PROFIT_NAMES = {DEDUCTED_PROFIT: "deducted_profit", NET_PROFIT_FALLBACK: "net_profit"}  # chart.financials.*


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
    ends = [(p, float(m.iloc[-1])) for p, m in mas.items() if m.notna().iloc[-1]]
    day = iso_days(frame["trade_date"].iloc[-1:])[0]

    def caption(lang: str) -> str:
        levels = ", ".join(
            say(
                "chart.price.level",
                lang,
                side=say(f"chart.side.{_side(last, end)}", lang),
                p=p,
                value=f"{end:.2f}",
            )
            for p, end in ends
        )
        return say(
            "chart.price.caption",
            lang,
            close=f"{last:.2f}",
            day=day,
            levels=say("chart.price.levels", lang, levels=levels) if ends else "",
            change=f"{(last / start - 1) * 100:+.1f}",
            n=len(shown),
        )

    w = ChartWords()
    return ChartSpec(
        id="price",
        title=w("chart.price.title", symbol=symbol),
        caption=w.text(caption),
        x=iso_days(frame.loc[shown, "trade_date"]),
        panels=[
            ChartPanel(
                y_label=w("chart.price.axis"),
                height=2.0,
                series=[
                    ChartSeries(
                        name=w("chart.price.close"), values=values(close.loc[shown]), color="#263238"
                    ),
                    *(ChartSeries(name=f"MA{p}", values=values(m.loc[shown])) for p, m in mas.items()),
                ],
            ),
            ChartPanel(
                y_label=w("chart.price.volume_axis"),
                height=0.8,
                series=[
                    ChartSeries(
                        name=w("chart.price.volume"),
                        kind="bar",
                        values=values(frame.loc[shown, "volume"] / MILLION),
                        color="#90a4ae",
                    )
                ],
            ),
        ],
        i18n=w.i18n,
    )


# ---- valuation -----------------------------------------------------------------------------------
def _valuation_panel(
    window: pd.DataFrame, column: str, name: str, x: list[str], w: ChartWords
) -> tuple[ChartPanel, dict[str, str]]:
    """The metric (only positive values mean something), its percentile band and today's point; and
    the caption's words about it in every language."""
    raw = pd.to_numeric(window[column], errors="coerce").astype("float64")
    valid = raw.where(np.isfinite(raw) & (raw > 0))
    current = float(valid.iloc[-1]) if pd.notna(valid.iloc[-1]) else None
    rank = percentile(window[column], current)
    bands: list[Band] = []
    lines: list[ReferenceLine] = []
    points: list[Point] = []
    names = SHOWN_NAME[name]
    if valid.count() >= MIN_HISTORY:
        low, mid, high = np.nanpercentile(valid.to_numpy(), BANDS).round(3)
        band = w("chart.valuation.band", low=f"{low:.2f}", high=f"{high:.2f}")
        bands = [Band(label=band, lower=[low] * len(x), upper=[high] * len(x))]
        lines = [ReferenceLine(label=w("chart.valuation.median"), value=float(mid), style="median")]
    if current is None:
        key = "chart.valuation.not_meaningful" if valid.count() else "chart.valuation.no_value"
        words = {lang: say(key, lang, name=names[lang]) for lang in names}
    else:
        value = f"{current:.2f}"
        if isinstance(rank, int):
            label = w("chart.valuation.point", day=x[-1], value=value, rank=rank)
            words = {
                lang: say("chart.valuation.ranked", lang, name=names[lang], value=value,
                          rank=ordinal(rank) if lang == "en" else rank)
                for lang in names
            }  # fmt: skip
        else:
            label = w("chart.valuation.point_unranked", day=x[-1], value=value)
            words = {
                lang: say("chart.valuation.unranked", lang, name=names[lang], value=value) for lang in names
            }
        points = [Point(label=label, x=x[-1], y=round(current, 3))]
    w.text(lambda lang: names[lang])
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
    w = ChartWords()
    drawn = [_valuation_panel(window, column, name, x, w) for column, name in VALUATIONS]
    panels = [panel for panel, _ in drawn if any(v is not None for v in panel.series[0].values)]
    if not panels:
        return None
    full = window["trade_date"].iloc[0] <= start + FULL_WINDOW_SLACK

    def span(lang: str) -> str:  # a young listing: say so
        if full:
            return say("chart.valuation.years", lang, n=HISTORY_YEARS)
        return say("chart.valuation.since", lang, day=x[0])

    def caption(lang: str) -> str:
        words = say("chart.valuation.separator", lang).join(said[lang] for _, said in drawn)
        return say("chart.valuation.caption", lang, span=span(lang), day=x[-1], words=words)

    return ChartSpec(
        id="valuation",
        title=w.text(lambda lang: say("chart.valuation.title", lang, symbol=symbol, span=span(lang))),
        caption=w.text(caption),
        x=x,
        panels=panels,
        i18n=w.i18n,
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


def _pct(value: float, lang: str, signed: bool = True) -> str:
    return (f"{value:+.1f}%" if signed else f"{value:.1f}%") if pd.notna(value) else say("chart.na", lang)


def financial_chart(symbol: str, records: list[AuditFinanceRecordInput], as_of: date) -> ChartSpec | None:
    visible = [r for r in records if r.ann_date <= as_of]  # point in time, whatever the caller gave
    if not visible:
        return None
    frame, basis = financial_frame(visible)
    shown, profit = frame.tail(PERIODS), PROFIT_NAMES.get(basis, "profit")
    latest = shown.iloc[-1]
    w = ChartWords()

    def profit_name(lang: str) -> str:
        return say(f"chart.financials.{profit}", lang)

    def caption(lang: str) -> str:
        return say(
            "chart.financials.caption",
            lang,
            period=latest["period"],
            revenue=_pct(latest["revenue_yoy"], lang),
            profit=profit_name(lang),
            growth=_pct(latest["profit_yoy"], lang),
            roe=_pct(latest["roe"], lang, False),
            margin=_pct(latest["grossprofit_margin"], lang, False),
        )

    profit_yoy = w.text(lambda lang: say("chart.financials.profit_yoy", lang, profit=profit_name(lang)))
    growth = _with_data(
        ChartSeries(
            name=w("chart.financials.revenue_yoy"), kind="bar", values=values(shown["revenue_yoy"], 2)
        ),
        ChartSeries(name=profit_yoy, kind="bar", values=values(shown["profit_yoy"], 2)),
    )
    returns = _with_data(
        ChartSeries(name=w("chart.financials.roe"), values=values(shown["roe"], 2)),
        ChartSeries(name=w("chart.financials.gross_margin"), values=values(shown["grossprofit_margin"], 2)),
    )
    zero = [ReferenceLine(label=w("chart.zero"), value=0.0, style="zero")]
    growth_axis, percent_axis = w("chart.financials.growth_axis"), w("chart.financials.percent_axis")
    panels = [
        *([ChartPanel(y_label=growth_axis, series=growth, lines=zero)] if growth else []),
        *([ChartPanel(y_label=percent_axis, series=returns)] if returns else []),
    ]
    if not panels:
        return None
    return ChartSpec(
        id="financials",
        title=w("chart.financials.title", symbol=symbol),
        caption=w.text(caption),
        x=shown["period"].tolist(),
        x_kind="category",
        panels=panels,
        i18n=w.i18n,
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
