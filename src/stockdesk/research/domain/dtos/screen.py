"""The whole-market screen's fields: one row per stored symbol, the snapshots' figures side by side.

Each field is the figure of the same name in a per-symbol snapshot (valuation, technical or
financial), computed by the same rules and rounded alike, NaN where the snapshot says N/A. The
names the issue used map as follows: market_cap -> total_mv (亿 of the listing currency),
dividend_yield -> dv_ratio, pe_pct/pb_pct -> pe_percentile/pb_percentile / 100 (kept as fractions so
that `pe_pct < 0.2` reads as written), macd -> macd_dif/macd_dea/macd_hist, profit_yoy ->
profit_dedt_yoy (of the snapshot's profit_growth_basis). change_60d_pct is the only figure no
snapshot shows: the technical builder's `change_pct` over 60 bars.
"""

from __future__ import annotations

from dataclasses import dataclass

VALUATION, TECHNICAL, FINANCIAL = "valuation", "technical", "financial"
ID_COLUMNS = ("symbol", "name", "market")


@dataclass(frozen=True)
class ScreenField:
    """A number a `--where` expression may name (`whole` when it is a count or a percentile)."""

    name: str
    source: str
    meaning: str
    whole: bool = False


@dataclass(frozen=True)
class ScreenText:
    """A text column of the output that an expression cannot name (dates and period labels)."""

    name: str
    source: str
    meaning: str


SCREEN_FIELDS: tuple[ScreenField, ...] = (
    ScreenField("pe_ttm", VALUATION, "PE TTM, (0, 5000] else empty"),
    ScreenField("pb", VALUATION, "PB, (0, 500]"),
    ScreenField("ps_ttm", VALUATION, "PS TTM, (0, 1000]"),
    ScreenField("dv_ratio", VALUATION, "dividend yield % (dv_ttm where no dv_ratio)"),
    ScreenField("total_mv", VALUATION, "market cap, 亿 (1e8) of the listing currency"),
    ScreenField("pe_percentile", VALUATION, "PE TTM percentile 0-100 over 3 years", whole=True),
    ScreenField("pb_percentile", VALUATION, "PB percentile 0-100 over 3 years", whole=True),
    ScreenField("ps_percentile", VALUATION, "PS TTM percentile 0-100 over 3 years", whole=True),
    ScreenField("pe_pct", VALUATION, "pe_percentile / 100 (0-1)"),
    ScreenField("pb_pct", VALUATION, "pb_percentile / 100 (0-1)"),
    ScreenField("history_days", VALUATION, "trading days in the 3-year percentile window", whole=True),
    ScreenField("growth_rate_avg", VALUATION, "mean of the last 4 YoY profit growths, %"),
    ScreenField("peg_ratio", VALUATION, "PE TTM / growth_rate_avg"),
    ScreenField("eps_ttm", VALUATION, "EPS TTM (else the latest YTD EPS annualised)"),
    ScreenField("bps", VALUATION, "book value per share of the latest report"),
    ScreenField("graham_intrinsic_val", VALUATION, "sqrt(22.5 x EPS TTM x BPS)"),
    ScreenField("graham_safety_margin", VALUATION, "(Graham - price) / price, %"),
    ScreenField("close", TECHNICAL, "last close by as_of"),
    ScreenField("bars", TECHNICAL, "daily bars in the technical window", whole=True),
    ScreenField("change_5d_pct", TECHNICAL, "close over the close 5 bars earlier, %"),
    ScreenField("change_20d_pct", TECHNICAL, "close over the close 20 bars earlier, %"),
    ScreenField("change_60d_pct", TECHNICAL, "close over the close 60 bars earlier, %"),
    ScreenField("ma5", TECHNICAL, "SMA 5 of forward-adjusted closes"),
    ScreenField("ma10", TECHNICAL, "SMA 10"),
    ScreenField("ma20", TECHNICAL, "SMA 20"),
    ScreenField("ma60", TECHNICAL, "SMA 60"),
    ScreenField("ma120", TECHNICAL, "SMA 120"),
    ScreenField("ma250", TECHNICAL, "SMA 250"),
    ScreenField("rsi14", TECHNICAL, "RSI 14 (Wilder)"),
    ScreenField("macd_dif", TECHNICAL, "MACD(12, 26, 9) line"),
    ScreenField("macd_dea", TECHNICAL, "MACD signal line"),
    ScreenField("macd_hist", TECHNICAL, "MACD line - signal"),
    ScreenField("roe", FINANCIAL, "ROE % of the latest report (year to date)"),
    ScreenField(
        "roe_ttm",
        FINANCIAL,
        "ROE % over the last twelve months (the EPS TTM rule: YTD + last annual - same period a year "
        "earlier; else the YTD ROE annualised)",
    ),
    ScreenField("roic", FINANCIAL, "ROIC %"),
    ScreenField("gross_margin", FINANCIAL, "gross margin %"),
    ScreenField("net_margin", FINANCIAL, "net margin %"),
    ScreenField("revenue_yoy", FINANCIAL, "revenue YoY % (the reported or_yoy without revenue)"),
    ScreenField("profit_dedt_yoy", FINANCIAL, "deducted (else net) profit YoY %"),
    ScreenField("debt_to_assets", FINANCIAL, "debt to assets %"),
    ScreenField("cash_quality", FINANCIAL, "operating cash flow per share / EPS"),
    ScreenField("current_ratio", FINANCIAL, "current ratio"),
    ScreenField("quick_ratio", FINANCIAL, "quick ratio"),
)
SCREEN_TEXTS: tuple[ScreenText, ...] = (
    ScreenText("trade_date", TECHNICAL, "date of the last bar by as_of"),
    ScreenText("latest_period", FINANCIAL, "the latest report announced by as_of, e.g. 2020Q1"),
)
FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in SCREEN_FIELDS)
OUTPUT_COLUMNS: tuple[str, ...] = (*ID_COLUMNS, *(t.name for t in SCREEN_TEXTS), *FIELD_NAMES)
