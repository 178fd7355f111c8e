"""A stored paper book with two stepped days (a fill, an order refused at limit-up, a position,
marks), written through the real store: for the page, walker and browser tests."""

from __future__ import annotations

from datetime import UTC, date, datetime

from stockdesk.paper.application import DayResult, DayVerdict, PaperBook, PaperMark, PaperPosition, PaperTrade
from stockdesk.paper.infrastructure.persistence.store import SqlPaperStore

BOOK = "walk-book"
DAY1, DAY2 = date(2024, 1, 2), date(2024, 1, 3)


def seed_book(store: SqlPaperStore, symbol: str = "600000.SH", name: str = BOOK) -> PaperBook:
    book = store.create(
        PaperBook(
            name=name,
            market="CN",
            capital=1_000_000,
            symbols=[symbol],
            opened_at=datetime(2024, 1, 1, tzinfo=UTC),
        )
    )
    days = [
        DayResult(
            day=DAY1, verdicts=[DayVerdict(day=DAY1, symbol=symbol, action="BUY")], orders=[], trades=[],
            mark=PaperMark(day=DAY1, cash=1_000_000, positions_value=0, equity=1_000_000, benchmark=1.0),
            positions=[],
        ),
        DayResult(
            day=DAY2, verdicts=[DayVerdict(day=DAY2, symbol=symbol, action="HOLD")], orders=[],
            trades=[
                PaperTrade(day=DAY2, symbol=symbol, side="BUY", quantity=20_000, price=10.0, costs=60.0,
                           reason="order"),
                PaperTrade(day=DAY2, symbol=symbol, side="BUY", quantity=0, price=11.0,
                           reason="limit-up at the open", filled=False),
            ],
            mark=PaperMark(day=DAY2, cash=799_940, positions_value=202_000, equity=1_001_940, benchmark=1.01),
            positions=[PaperPosition(symbol=symbol, quantity=20_000, cost=10.003, bought_on=DAY2, price=10.1,
                                     value=202_000)],
        ),
    ]  # fmt: skip
    for result in days:
        book = book.model_copy(update={"first_day": DAY1, "last_day": result.day})
        store.save_day(book, result)
    found = store.get(name)
    assert found is not None
    return found
