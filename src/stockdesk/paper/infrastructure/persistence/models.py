"""The paper book's tables (migration 0023_paper_books): books, and per book the verdicts, orders,
trades and marks of each stepped day and its current positions."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Boolean, Date, DateTime, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from stockdesk.shared.db import Base

BOOK_FK = "paper_books.id"


class PaperBookRow(Base):
    __tablename__ = "paper_books"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(40), unique=True)
    market: Mapped[str] = mapped_column(String(4))
    capital: Mapped[float] = mapped_column(Float)
    benchmark: Mapped[str | None] = mapped_column(String(32))
    symbols_json: Mapped[str] = mapped_column(Text)
    watchlist: Mapped[str | None] = mapped_column(String(64))
    max_weight: Mapped[float] = mapped_column(Float)
    opened_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    first_day: Mapped[date | None] = mapped_column(Date)
    last_day: Mapped[date | None] = mapped_column(Date)
    closed: Mapped[bool] = mapped_column(Boolean)


class PaperVerdictRow(Base):
    __tablename__ = "paper_verdicts"

    book_id: Mapped[int] = mapped_column(ForeignKey(BOOK_FK, ondelete="CASCADE"), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    symbol: Mapped[str] = mapped_column(String(32), primary_key=True)
    action: Mapped[str | None] = mapped_column(String(8))
    confidence: Mapped[float] = mapped_column(Float)
    note: Mapped[str] = mapped_column(Text)


class PaperOrderRow(Base):
    __tablename__ = "paper_orders"

    book_id: Mapped[int] = mapped_column(ForeignKey(BOOK_FK, ondelete="CASCADE"), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    symbol: Mapped[str] = mapped_column(String(32), primary_key=True)
    target_weight: Mapped[float] = mapped_column(Float)
    action: Mapped[str] = mapped_column(String(8))


class PaperTradeRow(Base):
    __tablename__ = "paper_trades"
    __table_args__ = (Index("ix_paper_trades_book_day", "book_id", "day"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    book_id: Mapped[int] = mapped_column(ForeignKey(BOOK_FK, ondelete="CASCADE"))
    day: Mapped[date] = mapped_column(Date)
    symbol: Mapped[str] = mapped_column(String(32))
    side: Mapped[str] = mapped_column(String(4))
    quantity: Mapped[float] = mapped_column(Float)
    price: Mapped[float | None] = mapped_column(Float)
    costs: Mapped[float] = mapped_column(Float)
    reason: Mapped[str] = mapped_column(String(200))
    filled: Mapped[bool] = mapped_column(Boolean)


class PaperMarkRow(Base):
    __tablename__ = "paper_marks"

    book_id: Mapped[int] = mapped_column(ForeignKey(BOOK_FK, ondelete="CASCADE"), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    cash: Mapped[float] = mapped_column(Float)
    positions_value: Mapped[float] = mapped_column(Float)
    equity: Mapped[float] = mapped_column(Float)
    benchmark: Mapped[float | None] = mapped_column(Float)


class PaperPositionRow(Base):
    __tablename__ = "paper_positions"

    book_id: Mapped[int] = mapped_column(ForeignKey(BOOK_FK, ondelete="CASCADE"), primary_key=True)
    symbol: Mapped[str] = mapped_column(String(32), primary_key=True)
    quantity: Mapped[float] = mapped_column(Float)
    cost: Mapped[float] = mapped_column(Float)
    bought_on: Mapped[date] = mapped_column(Date)
    price: Mapped[float | None] = mapped_column(Float)
    value: Mapped[float] = mapped_column(Float)
