"""IPaperStore on SQLite or PostgreSQL: a stepped day is written in one transaction, so a killed
replay leaves the book at its last completed day."""

from __future__ import annotations

import json
from datetime import UTC, date

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError

from stockdesk.paper.domain.errors import BookExists
from stockdesk.paper.domain.models import (
    DayOrder,
    DayResult,
    DayVerdict,
    PaperBook,
    PaperMark,
    PaperPosition,
    PaperTrade,
)
from stockdesk.paper.domain.ports import IPaperStore
from stockdesk.paper.infrastructure.persistence.models import (
    PaperBookRow,
    PaperMarkRow,
    PaperOrderRow,
    PaperPositionRow,
    PaperTradeRow,
    PaperVerdictRow,
)
from stockdesk.shared.db import Database


def _book(row: PaperBookRow) -> PaperBook:
    opened = row.opened_at
    return PaperBook(
        id=row.id, name=row.name, market=row.market, capital=row.capital, benchmark=row.benchmark,
        symbols=json.loads(row.symbols_json), watchlist=row.watchlist, max_weight=row.max_weight,
        opened_at=opened.replace(tzinfo=UTC) if opened.tzinfo is None else opened,
        first_day=row.first_day, last_day=row.last_day, closed=row.closed,
    )  # fmt: skip


class SqlPaperStore(IPaperStore):
    def __init__(self, database: Database):
        self._database = database

    def create(self, book: PaperBook) -> PaperBook:
        row = PaperBookRow(
            name=book.name, market=book.market, capital=book.capital, benchmark=book.benchmark,
            symbols_json=json.dumps(book.symbols), watchlist=book.watchlist, max_weight=book.max_weight,
            opened_at=book.opened_at, first_day=None, last_day=None, closed=False,
        )  # fmt: skip
        try:
            with self._database.session() as session:
                session.add(row)
                session.flush()
                return _book(row)
        except IntegrityError:
            raise BookExists(book.name) from None

    def get(self, name: str) -> PaperBook | None:
        with self._database.session() as session:
            row = session.scalars(select(PaperBookRow).where(PaperBookRow.name == name)).first()
            return _book(row) if row is not None else None

    def list(self) -> list[PaperBook]:
        with self._database.session() as session:
            return [_book(r) for r in session.scalars(select(PaperBookRow).order_by(PaperBookRow.name))]

    def close(self, name: str) -> None:
        with self._database.session() as session:
            session.execute(update(PaperBookRow).where(PaperBookRow.name == name).values(closed=True))

    def save_day(self, book: PaperBook, result: DayResult) -> None:
        day, book_id = result.day, book.id
        with self._database.session() as session:
            for table in (PaperVerdictRow, PaperOrderRow, PaperTradeRow, PaperMarkRow):
                session.execute(delete(table).where(table.book_id == book_id, table.day == day))
            session.execute(delete(PaperPositionRow).where(PaperPositionRow.book_id == book_id))
            session.add_all(
                PaperVerdictRow(book_id=book_id, day=day, symbol=v.symbol, action=v.action,
                                confidence=v.confidence, note=v.note)
                for v in result.verdicts
            )  # fmt: skip
            session.add_all(
                PaperOrderRow(
                    book_id=book_id, day=day, symbol=o.symbol, target_weight=o.target_weight, action=o.action
                )
                for o in result.orders
            )
            session.add_all(PaperTradeRow(book_id=book_id, **t.model_dump()) for t in result.trades)
            session.add(PaperMarkRow(book_id=book_id, **result.mark.model_dump()))
            session.add_all(PaperPositionRow(book_id=book_id, **p.model_dump()) for p in result.positions)
            session.execute(
                update(PaperBookRow)
                .where(PaperBookRow.id == book_id)
                .values(first_day=book.first_day, last_day=book.last_day)
            )

    def orders(self, book_id: int, through: date | None = None) -> list[DayOrder]:
        query = select(PaperOrderRow).where(PaperOrderRow.book_id == book_id)
        if through is not None:
            query = query.where(PaperOrderRow.day <= through)
        with self._database.session() as session:
            rows = session.scalars(query.order_by(PaperOrderRow.day, PaperOrderRow.symbol))
            return [
                DayOrder(day=r.day, symbol=r.symbol, target_weight=r.target_weight, action=r.action)
                for r in rows
            ]

    def verdicts(self, book_id: int, day: date) -> list[DayVerdict]:
        query = select(PaperVerdictRow).where(PaperVerdictRow.book_id == book_id, PaperVerdictRow.day == day)
        with self._database.session() as session:
            return [
                DayVerdict(day=r.day, symbol=r.symbol, action=r.action, confidence=r.confidence, note=r.note)
                for r in session.scalars(query.order_by(PaperVerdictRow.symbol))
            ]

    def trades(self, book_id: int, through: date | None = None) -> list[PaperTrade]:
        query = select(PaperTradeRow).where(PaperTradeRow.book_id == book_id)
        if through is not None:
            query = query.where(PaperTradeRow.day <= through)
        with self._database.session() as session:
            return [
                PaperTrade(day=r.day, symbol=r.symbol, side=r.side, quantity=r.quantity, price=r.price,
                           costs=r.costs, reason=r.reason, filled=r.filled)
                for r in session.scalars(query.order_by(PaperTradeRow.day, PaperTradeRow.id))
            ]  # fmt: skip

    def marks(self, book_id: int, through: date | None = None) -> list[PaperMark]:
        query = select(PaperMarkRow).where(PaperMarkRow.book_id == book_id)
        if through is not None:
            query = query.where(PaperMarkRow.day <= through)
        with self._database.session() as session:
            return [
                PaperMark(day=r.day, cash=r.cash, positions_value=r.positions_value, equity=r.equity,
                          benchmark=r.benchmark)
                for r in session.scalars(query.order_by(PaperMarkRow.day))
            ]  # fmt: skip

    def positions(self, book_id: int) -> list[PaperPosition]:
        query = select(PaperPositionRow).where(PaperPositionRow.book_id == book_id)
        with self._database.session() as session:
            return [
                PaperPosition(symbol=r.symbol, quantity=r.quantity, cost=r.cost, bought_on=r.bought_on,
                              price=r.price, value=r.value)
                for r in session.scalars(query.order_by(PaperPositionRow.symbol))
            ]  # fmt: skip
