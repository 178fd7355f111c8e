"""The portfolio's store: watchlists and positions (one SQL class; a port only because `domain` and
`application` may not import the database)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import datetime

from stockdesk.portfolio.domain.model import Position, Watchlist


class IPortfolioStore(ABC):
    @abstractmethod
    def watchlists(self) -> list[Watchlist]:
        """Every list with its members, by name."""

    @abstractmethod
    def watchlist(self, name: str) -> Watchlist | None: ...

    @abstractmethod
    def add_symbols(self, name: str, symbols: list[str], now: datetime) -> Watchlist:
        """Create the list if missing; append the symbols it does not hold yet (a rerun adds nothing)."""

    @abstractmethod
    def set_symbols(self, name: str, symbols: list[str], now: datetime) -> Watchlist:
        """Create the list if missing and make its members exactly `symbols`, in that order (a member
        kept keeps its added_at)."""

    @abstractmethod
    def remove_symbols(self, name: str, symbols: list[str]) -> Watchlist | None:
        """Drop the symbols from the list (None when there is no such list)."""

    @abstractmethod
    def delete_watchlist(self, name: str) -> bool: ...

    @abstractmethod
    def positions(self, account: str | None = None) -> list[Position]:
        """Every position (of one account), by account then symbol."""

    @abstractmethod
    def put_positions(self, positions: list[Position], now: datetime, replace_accounts: list[str]) -> None:
        """In one transaction: delete every position of `replace_accounts`, then insert or update each
        of `positions` by (account, symbol). Nothing is written if any of it fails."""

    @abstractmethod
    def remove_position(self, account: str, symbol: str) -> bool: ...
