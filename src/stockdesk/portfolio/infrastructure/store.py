"""IPortfolioStore on SQLite or PostgreSQL through the ORM; each method is one transaction (an
import's positions are written whole or not at all)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from stockdesk.portfolio.domain.model import Position, Watchlist, WatchlistMember
from stockdesk.portfolio.domain.ports import IPortfolioStore
from stockdesk.portfolio.infrastructure.models import HoldingRow, WatchlistMemberRow, WatchlistRow
from stockdesk.shared.db import Database
from stockdesk.shared.db.timestamps import as_utc


def _watchlist(session: Session, row: WatchlistRow) -> Watchlist:
    members = session.scalars(
        select(WatchlistMemberRow)
        .where(WatchlistMemberRow.watchlist_id == row.id)
        .order_by(WatchlistMemberRow.position)
    )
    return Watchlist(
        name=row.name,
        created_at=as_utc(row.created_at),  # type: ignore[arg-type]
        members=[
            WatchlistMember(symbol=m.symbol, added_at=as_utc(m.added_at), position=m.position)  # type: ignore[arg-type]
            for m in members
        ],
    )


def _position(row: HoldingRow) -> Position:
    return Position(
        account=row.account,
        symbol=row.symbol,
        quantity=row.quantity,
        cost_price=row.cost_price,
        opened_at=row.opened_at,
        updated_at=as_utc(row.updated_at),
    )


class SqlPortfolioStore(IPortfolioStore):
    def __init__(self, database: Database):
        self._database = database

    def watchlists(self) -> list[Watchlist]:
        with self._database.session() as session:
            rows = session.scalars(select(WatchlistRow).order_by(WatchlistRow.name)).all()
            return [_watchlist(session, row) for row in rows]

    def watchlist(self, name: str) -> Watchlist | None:
        with self._database.session() as session:
            row = session.scalar(select(WatchlistRow).where(WatchlistRow.name == name))
            return _watchlist(session, row) if row else None

    def add_symbols(self, name: str, symbols: list[str], now: datetime) -> Watchlist:
        with self._database.session() as session:
            row, members = _opened(session, name, now)
            held = {m.symbol for m in members}
            following = max((m.position for m in members), default=-1) + 1
            for symbol in symbols:
                if symbol not in held:
                    session.add(
                        WatchlistMemberRow(
                            watchlist_id=row.id, symbol=symbol, added_at=now, position=following
                        )
                    )
                    held.add(symbol)
                    following += 1
            session.flush()
            return _watchlist(session, row)

    def set_symbols(self, name: str, symbols: list[str], now: datetime) -> Watchlist:
        with self._database.session() as session:
            row, members = _opened(session, name, now)
            added = {m.symbol: m.added_at for m in members}
            for member in members:
                session.delete(member)
            session.flush()
            for order, symbol in enumerate(symbols):
                session.add(
                    WatchlistMemberRow(
                        watchlist_id=row.id, symbol=symbol, added_at=added.get(symbol, now), position=order
                    )
                )
            session.flush()
            return _watchlist(session, row)

    def remove_symbols(self, name: str, symbols: list[str]) -> Watchlist | None:
        with self._database.session() as session:
            row = session.scalar(select(WatchlistRow).where(WatchlistRow.name == name))
            if row is None:
                return None
            session.execute(
                delete(WatchlistMemberRow).where(
                    WatchlistMemberRow.watchlist_id == row.id, WatchlistMemberRow.symbol.in_(symbols)
                )
            )
            session.flush()
            return _watchlist(session, row)

    def delete_watchlist(self, name: str) -> bool:
        with self._database.session() as session:
            row = session.scalar(select(WatchlistRow).where(WatchlistRow.name == name))
            if row is None:
                return False
            session.execute(delete(WatchlistMemberRow).where(WatchlistMemberRow.watchlist_id == row.id))
            session.delete(row)
            return True

    def positions(self, account: str | None = None) -> list[Position]:
        query = select(HoldingRow).order_by(HoldingRow.account, HoldingRow.symbol)
        if account is not None:
            query = query.where(HoldingRow.account == account)
        with self._database.session() as session:
            return [_position(row) for row in session.scalars(query)]

    def put_positions(self, positions: list[Position], now: datetime, replace_accounts: list[str]) -> None:
        with self._database.session() as session:
            if replace_accounts:
                session.execute(delete(HoldingRow).where(HoldingRow.account.in_(replace_accounts)))
            for position in positions:
                row = session.scalar(
                    select(HoldingRow).where(
                        HoldingRow.account == position.account, HoldingRow.symbol == position.symbol
                    )
                )
                if row is None:
                    row = HoldingRow(account=position.account, symbol=position.symbol)
                    session.add(row)
                row.quantity = position.quantity
                row.cost_price = position.cost_price
                row.opened_at = position.opened_at
                row.updated_at = now

    def remove_position(self, account: str, symbol: str) -> bool:
        with self._database.session() as session:
            done = session.execute(
                delete(HoldingRow).where(HoldingRow.account == account, HoldingRow.symbol == symbol)
            )
            return bool(done.rowcount)  # type: ignore[attr-defined]


def _opened(session: Session, name: str, now: datetime) -> tuple[WatchlistRow, list[WatchlistMemberRow]]:
    """The list of that name (created now when there is none) and its members: where adding and
    replacing symbols start."""
    row = session.scalar(select(WatchlistRow).where(WatchlistRow.name == name))
    if row is None:
        row = WatchlistRow(name=name, created_at=now)
        session.add(row)
        session.flush()
    members = session.scalars(
        select(WatchlistMemberRow).where(WatchlistMemberRow.watchlist_id == row.id)
    ).all()
    return row, list(members)
