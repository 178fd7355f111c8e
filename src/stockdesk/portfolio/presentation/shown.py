"""The portfolio view as shown, in one language: every figure through the one formatting table
(`shared/figures.py`), every sentence from the catalogue. The CLI's table, the HTML report and the
web page read the same rows."""

from __future__ import annotations

from dataclasses import dataclass, field

from stockdesk.data_engineering.application import currency_of
from stockdesk.portfolio.application import BookRisk, PortfolioView
from stockdesk.portfolio.application.view_service import allocation_rows
from stockdesk.shared.figures import ShownFigure, format_figure, show_figure
from stockdesk.shared.wording import say

RISK_FIGURES = (
    "volatility", "realised_volatility", "beta", "max_drawdown", "top_weight", "hhi", "effective_names",
    "cash_weight",
)  # fmt: skip
NAME_FIGURES = ("annual_volatility", "edge", "raw_weight", "current_weight", "target_weight")
TRADE_FIGURES = ("trade_shares", "trade_price", "trade_value", "trade_costs")


@dataclass
class ShownName:
    symbol: str
    name: str
    industry: str
    action: str
    probability: str
    figures: list[ShownFigure]
    reasons: list[str]


@dataclass
class ShownTrade:
    symbol: str
    side: str
    figures: list[ShownFigure]
    note: str


@dataclass
class ShownView:
    lang: str
    title: str
    intro: str
    limits: str
    risk_labels: list[str]
    watchlist: str | None
    book_value: str
    window_days: int
    window_start: str
    benchmark: str
    current: list[str]
    target: list[str]
    name_labels: list[str]
    names: list[ShownName] = field(default_factory=list)
    trade_labels: list[str] = field(default_factory=list)
    trades: list[ShownTrade] = field(default_factory=list)
    total_costs: str = ""
    notes: list[str] = field(default_factory=list)


def _currency(view: PortfolioView) -> str | None:
    symbols = [a.symbol for a in view.allocations]
    return currency_of(symbols[0]) if symbols else None


def shown_view(view: PortfolioView, lang: str = "en") -> ShownView:
    money = _currency(view)
    source = (
        say("portfolio.report.source_watchlist", lang, name=view.watchlist)
        if view.watchlist
        else say("portfolio.report.source_holdings", lang)
    )
    bench = next((n.text.get(lang, "") for n in view.notes if n.code == "benchmark"), view.benchmark)
    limits = {k: f"{v * 100:.0f}%" for k, v in view.limits.items()}

    def risk(book: BookRisk | None) -> list[str]:
        """A book all in cash has no risk figures to show but its cash weight (not "0.0 %")."""
        cash_only = book is not None and book.invested_weight <= 0.0
        shown = [k for k in RISK_FIGURES if book is not None and (k == "cash_weight" or not cash_only)]
        return [format_figure(k, getattr(book, k) if k in shown else None, lang) for k in RISK_FIGURES]

    costs = format_figure("trade_costs", view.total_costs, lang, money)
    out = ShownView(
        lang=lang,
        title=say("portfolio.report.title", lang, day=view.as_of.isoformat()),
        intro=say(
            "portfolio.report.intro", lang, source=source,
            value=format_figure("book_value", view.book_value, lang, money),
            days=view.window_days, start=str(view.window_start or "—"), benchmark=bench,
        ),
        limits=say("portfolio.report.limits", lang, **limits),
        watchlist=view.watchlist, book_value=format_figure("book_value", view.book_value, lang, money),
        window_days=view.window_days, window_start=str(view.window_start or "—"), benchmark=bench,
        risk_labels=[show_figure(k, None, lang).name for k in RISK_FIGURES],
        current=risk(view.current),
        target=risk(view.target),
        name_labels=[show_figure(k, None, lang).name for k in NAME_FIGURES],
        trade_labels=[show_figure(k, None, lang).name for k in TRADE_FIGURES],
        total_costs=say("portfolio.report.total_costs", lang, costs=costs),
        notes=[n.text.get(lang, "") for n in view.notes if n.code != "benchmark"],
    )  # fmt: skip
    for a in allocation_rows(view):
        probability = "—" if a.probability is None else f"{a.probability:.2f}"
        if a.probability is not None and not a.calibrated:
            probability += f" ({say('portfolio.uncalibrated', lang)})"
        values = (a.volatility, a.edge, a.raw_weight, a.current_weight, a.target_weight)
        out.names.append(
            ShownName(
                symbol=a.symbol, name=a.name, industry=a.industry,
                action=say(f"portfolio.action.{a.action or 'none'}", lang), probability=probability,
                figures=[show_figure(k, v, lang) for k, v in zip(NAME_FIGURES, values, strict=True)],
                reasons=[r.text.get(lang, "") for r in a.reasons],
            )
        )  # fmt: skip
    for t in view.trades:
        currency = currency_of(t.symbol)
        values = zip(TRADE_FIGURES, (t.shares, t.price, t.value, t.costs), strict=True)
        out.trades.append(
            ShownTrade(
                symbol=t.symbol, side=say(f"portfolio.side.{t.side}", lang),
                figures=[show_figure(k, v, lang, currency) for k, v in values],
                note=t.note.text.get(lang, "") if t.note else "",
            )
        )  # fmt: skip
    return out
