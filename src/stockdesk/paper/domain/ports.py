"""The paper book's one port: its store (domain and application may not import the database).

The verdicts and the bars come through plain application classes over the coordinator's and
data_engineering's application interfaces (`application/verdicts.py`, `application/market.py`)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import date

from stockdesk.paper.domain.models import (
    DayOrder,
    DayResult,
    DayVerdict,
    PaperBook,
    PaperMark,
    PaperPosition,
    PaperTrade,
)


class IPaperStore(ABC):
    @abstractmethod
    def create(self, book: PaperBook) -> PaperBook:
        """Store a new book (BookExists when the name is taken)."""

    @abstractmethod
    def get(self, name: str) -> PaperBook | None: ...

    @abstractmethod
    def list(self) -> list[PaperBook]: ...

    @abstractmethod
    def close(self, name: str) -> None: ...

    @abstractmethod
    def save_day(self, book: PaperBook, result: DayResult) -> None:
        """Write one stepped day in one transaction (verdicts, orders, trades, mark, positions, last_day)."""

    @abstractmethod
    def orders(self, book_id: int, through: date | None = None) -> list[DayOrder]: ...

    @abstractmethod
    def verdicts(self, book_id: int, day: date) -> list[DayVerdict]: ...

    @abstractmethod
    def trades(self, book_id: int, through: date | None = None) -> list[PaperTrade]: ...

    @abstractmethod
    def marks(self, book_id: int, through: date | None = None) -> list[PaperMark]: ...

    @abstractmethod
    def positions(self, book_id: int) -> list[PaperPosition]: ...
