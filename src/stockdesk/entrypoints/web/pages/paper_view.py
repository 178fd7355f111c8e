"""The paper book pages' view models: figures formatted for the page, the equity chart's spec.

Every figure comes from PaperService.show (the same BookView as `stockdesk paper show --json` and
GET /api/v1/paper/books/{name}); units are in the column headings of the catalogue.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stockdesk.paper.application import BookView, PaperBook
from stockdesk.paper.application.charts import equity_chart

REASON_KEYS = {  # the book's trade reasons (paper.application.book_run) -> catalogue keys paper.reason.*
    "order": "order",
    "retry": "retry",
    "stop": "stop",
    "limit-up at the open": "limit_up",
    "limit-down at the open: retried at the next open it can": "limit_down",
    "suspended: no bar": "suspended",
    "less than one lot, or no cash left": "lots",
}


def _money(value: float) -> str:
    return f"{value:,.2f}"


def _pct(value: float) -> str:
    return f"{value * 100:.2f} %"


@dataclass
class BookRow:
    name: str
    market: str
    capital: str
    symbols: int
    first_day: str
    last_day: str
    closed: bool


@dataclass
class BookPage:
    name: str
    market: str
    as_of: str
    symbols: list[str]
    benchmark: str | None
    figures: list[tuple[str, str]] = field(default_factory=list)  # (catalogue key, value)
    positions: list[dict[str, str]] = field(default_factory=list)
    trades: list[dict[str, Any]] = field(default_factory=list)
    chart: dict[str, Any] | None = None
    closed: bool = False


def book_rows(books: list[PaperBook]) -> list[BookRow]:
    return [
        BookRow(
            name=b.name, market=b.market, capital=_money(b.capital), symbols=len(b.symbols),
            first_day=str(b.first_day or "–"), last_day=str(b.last_day or "–"), closed=b.closed,
        )
        for b in books
    ]  # fmt: skip


def book_page(view: BookView) -> BookPage:
    book, f = view.book, view.figures
    page = BookPage(
        name=book.name, market=book.market, as_of=str(view.as_of or "–"), symbols=book.symbols,
        benchmark=book.benchmark, closed=book.closed,
    )  # fmt: skip
    if f is not None:
        m = f.metrics
        page.figures = [
            ("paper.fig.start", _money(f.start_equity)),
            ("paper.fig.end", _money(f.end_equity)),
            ("paper.fig.total", _pct(m.total_return)),
            ("paper.fig.annual", _pct(m.annual_return)),
            ("paper.fig.volatility", _pct(m.volatility)),
            ("paper.fig.drawdown", _pct(m.max_drawdown)),
            ("paper.fig.sharpe", f"{m.sharpe:.2f}"),
            ("paper.fig.benchmark", _pct(f.benchmark.total_return) if f.benchmark else "–"),
            ("paper.fig.trades", str(f.trades)),
            ("paper.fig.not_filled", str(f.not_filled)),
        ]
    page.positions = [
        {"symbol": p.symbol, "quantity": f"{p.quantity:,.0f}", "cost": f"{p.cost:,.4f}",
         "bought_on": str(p.bought_on), "price": "–" if p.price is None else f"{p.price:,.2f}",
         "value": _money(p.value)}
        for p in view.positions
    ]  # fmt: skip
    page.trades = [
        {"day": str(t.day), "symbol": t.symbol, "side": t.side, "quantity": f"{t.quantity:,.0f}",
         "price": "–" if t.price is None else f"{t.price:,.2f}", "costs": _money(t.costs),
         "filled": t.filled, "reason": REASON_KEYS.get(t.reason, "other")}
        for t in reversed(view.trades)
    ]  # fmt: skip
    spec = equity_chart(book, view.marks)
    page.chart = spec.model_dump(mode="json") if spec is not None else None
    return page
