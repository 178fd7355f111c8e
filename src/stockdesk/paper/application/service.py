"""The paper book's use cases: open, step, replay, show, list, close.

`step` and `replay` run the same loop (`_advance`): the trading days of the book's universe in
order, each through `book_run.step_day` and stored in one transaction before the next begins, so
an interrupted replay (Ctrl-C) leaves the book at its last completed day and a later step or replay
goes on from there. A day already stepped is never stepped again (stepping it twice changes
nothing). `step` with no date steps up to the store's latest trading day; a book's first step
starts it at that day, and `step` on a later day steps every trading day in between.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta

import pandas as pd
from pydantic import BaseModel, Field

from stockdesk.backtest.application import (
    PerformanceMetrics,
    index_levels,
    limit_lookup,
    performance,
    trading_panel,
)
from stockdesk.paper.application.book_run import Market, step_day
from stockdesk.paper.application.market import PaperMarket
from stockdesk.paper.application.verdicts import RulesVerdicts
from stockdesk.paper.domain.errors import BadBookInput, BookClosed, BookExists, BookNotFound
from stockdesk.paper.domain.models import (
    DayResult,
    PaperBook,
    PaperMark,
    PaperPosition,
    PaperTrade,
)
from stockdesk.paper.domain.ports import IPaperStore

LOOK_BACK = timedelta(days=15)
"""Bars read before the first day: the first day's limit reference (the previous close)."""

DayCallback = Callable[[DayResult, int, int], None]


class BookFigures(BaseModel):
    """The equity curve's figures, as the strategy lab states them (`backtest.performance`)."""

    start_equity: float
    end_equity: float
    metrics: PerformanceMetrics
    benchmark: PerformanceMetrics | None = None
    trades: int = Field(description="filled trades")
    not_filled: int = Field(description="orders that could not be filled (limits, suspensions, lots)")


class BookView(BaseModel):
    """A book as of a day: its definition, positions, trades, marks and figures."""

    book: PaperBook
    as_of: date | None
    positions: list[PaperPosition]
    trades: list[PaperTrade]
    marks: list[PaperMark]
    figures: BookFigures | None


class PaperService:
    def __init__(
        self,
        store: IPaperStore,
        verdicts: RulesVerdicts,
        market: PaperMarket,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        watchlist_symbols: Callable[[str], list[str]] | None = None,
    ):
        """`watchlist_symbols(name)` is the portfolio context's watchlist lookup (it raises
        WATCHLIST_NOT_FOUND): a book opened over a watchlist takes its symbols from it."""
        self._store = store
        self._verdicts = verdicts
        self._market = market
        self._clock = clock
        self._watchlist_symbols = watchlist_symbols

    # -- books --------------------------------------------------------------------------------
    def open(
        self,
        name: str,
        *,
        market: str,
        capital: float,
        symbols: Sequence[str],
        benchmark: str | None = None,
        max_weight: float | None = None,
        watchlist: str | None = None,
    ) -> PaperBook:
        """A new book over `symbols`, or over a watchlist's symbols as they are now (the list's name
        is kept on the book). Every symbol and the benchmark must be stored, in the book's market."""
        symbols = self._universe(symbols, watchlist)
        try:
            book = PaperBook(
                name=name, market=market, capital=capital, symbols=list(symbols), benchmark=benchmark,
                watchlist=watchlist, opened_at=self._clock(),
                **({"max_weight": max_weight} if max_weight is not None else {}),
            )  # fmt: skip
        except ValueError as error:
            raise BadBookInput(_first_error(error)) from None
        if self._store.get(book.name) is not None:
            raise BookExists(book.name)
        known = self._market.markets([*book.symbols, *([book.benchmark] if book.benchmark else [])])
        unknown = [s for s in [*book.symbols, book.benchmark] if s and s not in known]
        if unknown:
            raise BadBookInput(f"not in the store: {', '.join(unknown)}")
        other = sorted(s for s in book.symbols if known[s] != book.market)
        if other:
            raise BadBookInput(f"not in the {book.market} market: {', '.join(other)}")
        return self._store.create(book)

    def _universe(self, symbols: Sequence[str], watchlist: str | None) -> list[str]:
        if watchlist is None:
            return list(symbols)
        if symbols:
            raise BadBookInput("give the symbols or a watchlist, not both")
        if self._watchlist_symbols is None:
            raise BadBookInput("watchlists are not available here")
        listed = self._watchlist_symbols(watchlist)
        if not listed:
            raise BadBookInput(f"watchlist {watchlist!r} has no symbols")
        return listed

    def get(self, name: str) -> PaperBook:
        book = self._store.get(name)
        if book is None:
            raise BookNotFound(name)
        return book

    def list(self) -> list[PaperBook]:
        return self._store.list()

    def close(self, name: str) -> PaperBook:
        """No more steps; the book and its history stay readable."""
        self.get(name)
        self._store.close(name)
        return self.get(name)

    # -- stepping -------------------------------------------------------------------------------
    def step(
        self, name: str, as_of: date | None = None, on_day: DayCallback | None = None
    ) -> list[DayResult]:
        """Step every trading day after the last stepped one up to `as_of` (default: the store's
        latest trading day); a new book starts at `as_of`."""
        book = self._open_book(name)
        end = as_of or self._latest_day(book)
        start = book.last_day + timedelta(days=1) if book.last_day else end
        return self._advance(book, start, end, on_day)

    def replay(self, name: str, start: date, end: date, on_day: DayCallback | None = None) -> list[DayResult]:
        """Step each trading day from `start` to `end` in order, as the live steps would have.

        A book already stepped goes on from its last day (its days are never redone); it cannot
        leave a gap, so `start` must not be after the day that follows its last one."""
        if start > end:
            raise BadBookInput(f"--from {start} is after --to {end}")
        book = self._open_book(name)
        if book.last_day is not None:
            following = self._days(book, book.last_day + timedelta(days=1), end)
            if following and start > following[0]:
                raise BadBookInput(
                    f"book {book.name!r} was last stepped on {book.last_day}: "
                    f"replay from {following[0]} or before"
                )
            start = book.last_day + timedelta(days=1)
        return self._advance(book, start, end, on_day)

    def _open_book(self, name: str) -> PaperBook:
        book = self.get(name)
        if book.closed:
            raise BookClosed(book.name)
        return book

    def _latest_day(self, book: PaperBook) -> date:
        bars = self._market.bars(book.symbols, date(1990, 1, 1), date(2100, 1, 1))
        if bars.empty:
            raise BadBookInput("the store has no bars for the book's symbols")
        return pd.Timestamp(bars["trade_date"].max()).date()

    def _days(self, book: PaperBook, start: date, end: date) -> list[date]:
        bars = self._market.bars(book.symbols, start, end)
        days = pd.to_datetime(bars["trade_date"]) if len(bars) else pd.Series([], dtype="datetime64[ns]")
        return sorted({d.date() for d in days if start <= d.date() <= end})

    def _advance(
        self, book: PaperBook, start: date, end: date, on_day: DayCallback | None
    ) -> list[DayResult]:
        if book.last_day is not None and end <= book.last_day:
            return []  # already stepped: nothing changes
        first = book.first_day
        market = self._load(book, min(first or start, start), end)
        days = [d.date() for d in market.panel.close.index if start <= d.date() <= end]
        results = []
        for count, day in enumerate(days, start=1):
            first = first or day
            verdicts = self._verdicts.verdicts(book, book.symbols, day)
            result = step_day(
                book, market, day, first, self._store.orders(book.id), self._store.trades(book.id), verdicts
            )
            book = book.model_copy(update={"first_day": first, "last_day": day})
            self._store.save_day(book, result)
            results.append(result)
            if on_day is not None:
                on_day(result, count, len(days))
        return results

    def _load(self, book: PaperBook, start: date, end: date) -> Market:
        """The universe's panel and the benchmark's levels from `start` (with a look-back) to `end`."""
        wanted = [*book.symbols, *([book.benchmark] if book.benchmark else [])]
        bars = self._market.bars(wanted, start - LOOK_BACK, end)
        universe_bars = bars.loc[bars["symbol"].isin(book.symbols)]
        markets = self._market.markets(book.symbols)
        panel = trading_panel(universe_bars, markets, limit_lookup(self._market.names(book.symbols)))
        levels = index_levels(bars, [book.benchmark] if book.benchmark else book.symbols)
        return Market(panel=panel, benchmark=levels["close"])

    # -- reading --------------------------------------------------------------------------------
    def show(self, name: str, as_of: date | None = None) -> BookView:
        """The book as of `as_of` (default: its last stepped day): the marks and trades through
        it, the positions then (rebuilt from the trades when `as_of` is before the last day)."""
        book = self.get(name)
        marks = self._store.marks(book.id, as_of)
        trades = self._store.trades(book.id, as_of)
        day = marks[-1].day if marks else None
        if as_of is None or (book.last_day is not None and as_of >= book.last_day):
            positions = self._store.positions(book.id)
        else:
            positions = _positions_from(trades)
        return BookView(
            book=book,
            as_of=day,
            positions=positions,
            trades=trades,
            marks=marks,
            figures=figures(book, marks, trades),
        )


def figures(book: PaperBook, marks: Sequence[PaperMark], trades: Sequence[PaperTrade]) -> BookFigures | None:
    """Start and end equity, the NAV's performance and the benchmark's over the same days."""
    if not marks:
        return None
    equity = pd.Series([m.equity for m in marks], index=[pd.Timestamp(m.day) for m in marks])
    nav = equity / book.capital  # the first day's close is the capital: its orders fill the next day
    bench = pd.Series([m.benchmark for m in marks], dtype="float64")
    return BookFigures(
        start_equity=book.capital,
        end_equity=float(equity.iloc[-1]),
        metrics=performance(nav),
        benchmark=performance(bench / bench.iloc[0]) if bench.notna().all() and len(bench) else None,
        trades=sum(1 for t in trades if t.filled),
        not_filled=sum(1 for t in trades if not t.filled),
    )


def _positions_from(trades: Sequence[PaperTrade]) -> list[PaperPosition]:
    """Quantities and costs from the filled trades (no value: `show --as-of` an earlier day)."""
    held: dict[str, PaperPosition] = {}
    for t in (t for t in trades if t.filled):
        found = held.get(t.symbol) or PaperPosition(symbol=t.symbol, quantity=0.0, cost=0.0, bought_on=t.day)
        if t.side == "BUY":
            spent = found.cost * found.quantity + t.quantity * float(t.price or 0.0) + t.costs
            quantity = found.quantity + t.quantity
            found = found.model_copy(
                update={"quantity": quantity, "cost": round(spent / quantity, 4), "bought_on": t.day}
            )
        else:
            found = found.model_copy(update={"quantity": max(found.quantity - t.quantity, 0.0)})
        held[t.symbol] = found
    return [p for _, p in sorted(held.items()) if p.quantity > 1e-9]


def _first_error(error: ValueError) -> str:
    errors = getattr(error, "errors", None)
    if callable(errors):
        first = errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        return f"{where}: {first.get('msg')}" if where else str(first.get("msg"))
    return str(error)
