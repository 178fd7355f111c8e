"""Figures as a reader reads them: one table of every figure the product shows (its label, unit,
scale and decimals) and one function that writes a value of it, in English or Chinese.

Why one table: the report, the session page and the data page each printed numbers their own way
(`roe 4.46` with no unit, `Volume 7647805.0`, a fraction beside a percent). Here a figure's key
decides once what it is, and `format_figure` writes it; the three read the same words. A key the
table does not know is an `UnknownFigure` (a test walks every key the experts' figures, the cards,
the screen, the trade plan and the data page can emit); shown anyway, it is logged and worded from
its key (never printed as raw snake_case).

The labels and unit words are the catalogue namespace `figure.*` in `shared/i18n/{en,zh}/figures.json`:
the web catalogue merges it (so a page's `t("figure.roe")` works), and the report, written outside
the web app, reads it here.

Units of the stored values (the store's, see `data_engineering.domain.frames`, and the snapshots'
own): a `percent` figure is already in percent (roe 4.46 = 4.46 %); a `fraction` is 0..1 (a
probability, a position, a hit rate) and is shown x100; money is in currency units except the
snapshots' `total_mv` and `interest_debt_yi` (亿 = 1e8); volume in shares. Money and share counts
are scaled for reading: K/M/B in English, 万/亿 in Chinese.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any, Literal

from stockdesk.shared.wording import UnknownText, say, shared_texts

logger = logging.getLogger(__name__)

Kind = Literal[
    "price",  # a price in the listing currency (per share): 20.00 CNY
    "money",  # an amount in the listing currency, scaled: 1.23B CNY / 12.30亿元
    "shares",  # a number of shares, scaled: 7.65M shares / 764.78万股
    "percent",  # already in percent: 4.46%
    "fraction",  # 0..1, shown in percent: 0.08 -> 8.0%
    "multiple",  # times: PE 23.46×
    "number",  # an index or ratio whose label says its scale (RSI 0-100, PEG)
    "percentile",  # 0-100 rank against its own history: 35th percentile
    "count",  # a whole count with its noun: 250 trading days, 3 results
    "flag",  # yes / no
    "text",  # a label such as a report period, shown as it is
]
DASH = "—"
LANGUAGES = ("en", "zh")
SCALES = {  # largest first: the first size the value reaches names it
    "en": ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")),
    "zh": ((1e12, "万亿"), (1e8, "亿"), (1e4, "万")),
}
SCALED_DECIMALS = 2
MULTIPLE = "×"


@dataclass(frozen=True)
class FigureFormat:
    """What one figure is: how to read its stored value and how to write it."""

    kind: Kind
    decimals: int = 2
    signed: bool = False  # a change: its sign is always written (+3.20%, -4.95%)
    base: float = 1.0  # one stored unit in currency units: the snapshots' total_mv is in 亿 -> 1e8
    noun: str = ""  # a count's noun: the catalogue text `figure.unit.<noun>`


@dataclass(frozen=True)
class ShownFigure:
    """One figure as shown: its key (for a page's data attribute), its label and its text."""

    key: str
    name: str
    value: str
    unitless: bool = False  # an index or ratio whose label says its scale (RSI 0-100, PEG): no unit to show


class UnknownFigure(KeyError):
    """A figure key the table does not know: add it to FIGURES and its label to the catalogue."""


def _same(keys: tuple[str, ...], form: FigureFormat) -> dict[str, FigureFormat]:
    return dict.fromkeys(keys, form)


PRICE = FigureFormat("price")
PERCENT = FigureFormat("percent")
CHANGE = FigureFormat("percent", signed=True)
TIMES = FigureFormat("multiple")
INDEX = FigureFormat("number", decimals=1)
RATIO = FigureFormat("number")
MONEY = FigureFormat("money")
TRADING_DAYS = FigureFormat("count", decimals=0, noun="trading_days")
SEARCH_DIMENSIONS = (  # research's search experts: each reports `<dimension>_results`
    "monetary_policy", "industry_policy", "macro_economy", "industry_outlook",
    "company_events", "industry_catalysts", "market_sentiment", "earnings_expectations",
)  # fmt: skip

PRICES = (
    "close", "open", "high", "low", "pre_close", "current_price", "ma5", "ma10", "ma20", "ma60", "ma120",
    "ma250", "boll_upper", "boll_mid", "boll_lower", "vwap20", "high_20d", "low_20d", "atr14", "atr", "bps",
    "graham_intrinsic_val", "entry_price", "stop_loss_price", "take_profit_price", "swing_low", "swing_high",
    "ocfps",
)  # fmt: skip
LEVELS = (
    "roe", "roe_ttm", "roic", "gross_margin", "net_margin", "debt_to_assets", "dv_ratio", "dv_ttm",
    "turnover_rate", "atr14_pct", "boll_bandwidth_pct",
)  # fmt: skip
CHANGES = (
    "growth_rate_avg", "revenue_yoy", "profit_dedt_yoy", "or_yoy", "netprofit_yoy", "change_5d_pct",
    "change_20d_pct", "change_60d_pct", "pct_chg", "stop_distance_pct", "target_distance_pct",
)  # fmt: skip

FIGURES: dict[str, FigureFormat] = {
    # prices (per share, in the listing currency)
    **_same(PRICES, PRICE),
    **_same(("eps", "eps_ttm"), FigureFormat("price", decimals=3)),
    # indicators in price units: their sign is their reading
    **_same(("macd_dif", "macd_dea", "macd_hist"), FigureFormat("number", decimals=4, signed=True)),
    # levels and changes in percent (the trade plan's distances are signed by the view: below the entry -)
    **_same(LEVELS, PERCENT),
    **_same(CHANGES, CHANGE),
    "graham_safety_margin": FigureFormat("percent", decimals=1, signed=True),
    # fractions 0..1, shown in percent
    **_same(("pe_pct", "pb_pct", "position_percent", "p_up"), FigureFormat("fraction", decimals=1)),
    **_same(("agreement_ratio", "hit_rate", "ece"), FigureFormat("fraction", decimals=1)),
    **_same(("excess_return", "mean_excess", "median_excess"), FigureFormat("fraction", 2, signed=True)),
    # multiples
    **_same(("pe", "pe_ttm", "pb", "ps", "ps_ttm", "volume_ratio", "cash_quality", "risk_reward"), TIMES),
    # indices and plain ratios (the label says the scale)
    **_same(("rsi14", "adx14", "kdj_k", "kdj_d", "kdj_j"), INDEX),
    **_same(("peg_ratio", "current_ratio", "quick_ratio", "confidence"), RATIO),
    "code_score": FigureFormat("number", signed=True),
    **_same(("pe_percentile", "pb_percentile", "ps_percentile"), FigureFormat("percentile", decimals=0)),
    # amounts (currency units), and the snapshots' amounts in 亿
    **_same(("market_cap", "circ_mv", "amount", "revenue", "net_profit", "profit_dedt"), MONEY),
    **_same(("total_mv", "interest_debt_yi"), FigureFormat("money", base=1e8)),
    **_same(("volume", "total_shares"), FigureFormat("shares", decimals=0)),
    # counts
    **_same(("bars", "history_days"), TRADING_DAYS),
    **_same(("receivable_days", "inventory_days"), FigureFormat("count", decimals=0, noun="days")),
    "growth_periods": FigureFormat("count", decimals=0, noun="periods"),
    **{f"{d}_results": FigureFormat("count", decimals=0, noun="results") for d in SEARCH_DIMENSIONS},
    "has_information": FigureFormat("flag"),
    # a held position (portfolio): shares, cost a share, amounts in the listing currency
    "quantity": FigureFormat("shares", decimals=0),
    "cost_price": PRICE,
    **_same(("cost_basis", "market_value", "unrealised_pnl"), MONEY),
    "unrealised_pnl_pct": CHANGE,
    "days_held": FigureFormat("count", decimals=0, noun="days"),
    # the holder's plan beside a verdict (judge's HolderPlan)
    "book_weight": FigureFormat("fraction", decimals=1),
    # share counts to act on are exact (1,000 shares, never 1.00K)
    **_same(
        ("sellable_shares", "locked_shares", "trade_shares"), FigureFormat("count", decimals=0, noun="shares")
    ),
    **_same(("break_even", "holder_stop", "holder_target"), PRICE),
    **_same(("estimated_cost", "trade_value"), MONEY),
    "cost_rate": FigureFormat("fraction", decimals=2),
    # the portfolio view: weights and risk figures of a book (fractions), its trades
    **_same(
        ("current_weight", "target_weight", "raw_weight", "top_weight", "cash_weight", "invested_weight"),
        FigureFormat("fraction", decimals=1),
    ),
    **_same(("volatility", "realised_volatility", "annual_volatility"), FigureFormat("fraction", decimals=1)),
    "max_drawdown": FigureFormat("fraction", decimals=1, signed=True),
    "edge": FigureFormat("fraction", decimals=1, signed=True),
    "beta": FigureFormat("number"),
    "hhi": FigureFormat("number", decimals=3),
    "effective_names": FigureFormat("number", decimals=1),
    **_same(("book_value", "trade_costs"), MONEY),  # trade_value, trade_shares: with the holder's plan
    "trade_price": PRICE,
    # labels shown as they are
    **_same(("period", "latest_period", "latest_report_period", "trade_date"), FigureFormat("text")),
}


# ---- the catalogue namespace ---------------------------------------------------------------------
def figure_texts(lang: str) -> dict[str, str]:
    """The shared catalogue of one language, `figure.*` among it (the web catalogue merges it)."""
    return shared_texts(lang)


def words(key: str, lang: str = "en", **values: Any) -> str:
    """A `figure.*` text in `lang` (English when that language lacks it), filled in with `values`."""
    try:
        return say(key, lang, **values)
    except UnknownText:
        raise UnknownFigure(key) from None


def figure_format(key: str) -> FigureFormat:
    """The table's entry of `key`; UnknownFigure when it has none."""
    try:
        return FIGURES[key]
    except KeyError:
        raise UnknownFigure(key) from None


def figure_label(key: str, lang: str = "en") -> str:
    """The figure's label in `lang` (UnknownFigure for a key the table or the catalogue lacks)."""
    figure_format(key)
    return words(f"figure.{key}", lang)


# ---- writing a value -----------------------------------------------------------------------------
def _number(value: float, decimals: int, signed: bool = False) -> str:
    """Thousands separated, `decimals` places; a value that rounds to zero has no sign (never -0.00)."""
    if round(value, decimals) == 0:
        return f"{0:.{decimals}f}"
    return f"{value:+,.{decimals}f}" if signed else f"{value:,.{decimals}f}"


def _scaled(value: float, lang: str, decimals: int) -> str:
    """A large amount in the language's units: 7.65M (en), 764.78万 (zh); a small one as it is."""
    for size, suffix in SCALES["zh" if lang == "zh" else "en"]:
        if abs(value) >= size:
            return f"{_number(value / size, SCALED_DECIMALS)}{suffix}"
    return _number(value, decimals)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _currency(amount: str, currency: str | None, lang: str) -> str:
    if not currency:
        return amount
    try:
        name = words(f"figure.currency.{currency.upper()}", lang)
    except UnknownFigure:
        name = currency.upper()
    return words("figure.unit.money", lang, n=amount, currency=name)


def _write(form: FigureFormat, x: float, lang: str, currency: str | None) -> str:
    """A finite number of one kind as text."""
    if form.kind == "price":
        return _currency(_number(x, form.decimals), currency, lang)
    if form.kind == "money":
        return _currency(_scaled(x * form.base, lang, form.decimals), currency, lang)
    if form.kind == "shares":
        return words("figure.unit.shares", lang, n=_scaled(x, lang, form.decimals))
    if form.kind in ("percent", "fraction"):
        return f"{_number(x * 100 if form.kind == 'fraction' else x, form.decimals, form.signed)}%"
    if form.kind == "multiple":
        return f"{_number(x, form.decimals, form.signed)}{MULTIPLE}"
    if form.kind == "percentile":
        whole = round(x)
        return words("figure.unit.percentile", lang, n=whole, ordinal=_ordinal(whole))
    if form.kind == "count":
        return words(f"figure.unit.{form.noun}", lang, n=_number(x, 0))
    return _number(x, form.decimals, form.signed)


def format_figure(key: str, value: Any, lang: str = "en", currency: str | None = None) -> str:
    """`value` of figure `key` as text in `lang` ("en"/"zh"); `currency`: the listing currency's code
    for prices and amounts (none: the number alone). Missing, N/A and non-finite values are a dash;
    UnknownFigure for a key the table does not know."""
    form = figure_format(key)
    if isinstance(value, bool):
        return words("figure.yes" if value else "figure.no", lang)
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return DASH
    if form.kind == "text" or not isinstance(value, (int, float)):
        shown = " ".join(str(value).split())
        return DASH if shown in ("", "N/A") else shown
    return _write(form, float(value), lang, currency)


def show_figure(key: str, value: Any, lang: str = "en", currency: str | None = None) -> ShownFigure:
    """The figure's label and text, for a page or a report. A key the table does not know is logged
    and worded from its key ("safety margin" for safety_margin), never shown as snake_case."""
    try:
        text = format_figure(key, value, lang, currency)
        return ShownFigure(key, figure_label(key, lang), text, unitless=FIGURES[key].kind == "number")
    except UnknownFigure:
        logger.warning("figure %r is not in shared.figures.FIGURES: shown without its unit", key)
        shown = value if isinstance(value, str) else f"{value:g}" if isinstance(value, float) else str(value)
        return ShownFigure(key, key.replace("_", " ").strip().capitalize(), shown)
