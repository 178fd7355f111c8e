"""Watchlists and holdings: what the CLI, REST, the web pages and later contexts (holdings-aware
verdicts, the scheduler, the portfolio view) call. Every valuation is point in time: the close is
the last stored bar on or before the as-of date, read as of that date."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

from pydantic import BaseModel, Field

from stockdesk.data_engineering.application import DailyBarDTO
from stockdesk.portfolio.application.holdings_import import checked_positions, read_holdings
from stockdesk.portfolio.application.symbols import SymbolCheck
from stockdesk.portfolio.domain.errors import (
    InvalidNameError,
    InvalidPositionError,
    PositionNotFoundError,
    WatchlistNotFoundError,
)
from stockdesk.portfolio.domain.model import (
    DEFAULT_ACCOUNT,
    MAX_PRICE,
    MAX_QUANTITY,
    NAME_PATTERN,
    Position,
    Watchlist,
)
from stockdesk.portfolio.domain.ports import IPortfolioStore

CLOSE_LOOKBACK_DAYS = 400  # a close older than this (a long suspension) is not a valuation
BarReader = Callable[[str, date, date, date], list[DailyBarDTO]]
"""(symbol, as_of, start, end) -> the stored daily bars known as of `as_of` (the data context's)."""


def _now() -> datetime:
    return datetime.now(UTC)


def check_name(name: str, what: str = "watchlist") -> str:
    name = name.strip()
    if not NAME_PATTERN.match(name):
        raise InvalidNameError(f"{what} name {name!r} must be 1-64 letters, digits, '.', '_', '-' or spaces")
    return name


class WatchlistService:
    def __init__(self, store: IPortfolioStore, symbols: SymbolCheck, now: Callable[[], datetime] = _now):
        self._store = store
        self._symbols = symbols
        self._now = now

    def lists(self) -> list[Watchlist]:
        return self._store.watchlists()

    def get(self, name: str) -> Watchlist:
        found = self._store.watchlist(name.strip())
        if found is None:
            raise WatchlistNotFoundError(f"no watchlist named {name.strip()!r}", details={"name": name})
        return found

    def symbols(self, name: str) -> list[str]:
        """The list's symbols in their order (WATCHLIST_NOT_FOUND when there is no such list)."""
        return self.get(name).symbols

    def add(self, name: str, typed: list[str]) -> Watchlist:
        """Create the list if needed and append the symbols (codes or names) it lacks; all are checked
        before anything is written."""
        name = check_name(name)
        symbols = list(dict.fromkeys(self._symbols.resolve_all(typed)))
        return self._store.add_symbols(name, symbols, self._now())

    def replace(self, name: str, typed: list[str]) -> Watchlist:
        """Create or overwrite the list with exactly these symbols (checked first), in this order."""
        name = check_name(name)
        symbols = list(dict.fromkeys(self._symbols.resolve_all(typed)))
        return self._store.set_symbols(name, symbols, self._now())

    def remove(self, name: str, typed: list[str] | None = None) -> Watchlist | None:
        """Drop the symbols from the list; no symbols: delete the list (None)."""
        name = name.strip()
        if not typed:
            if not self._store.delete_watchlist(name):
                raise WatchlistNotFoundError(f"no watchlist named {name!r}", details={"name": name})
            return None
        current = self.get(name).symbols
        wanted = []
        for text in typed:
            code = self._symbols.canonical(text)
            wanted.append(code if code in current else self._symbols.resolve(text))
        return self._store.remove_symbols(name, wanted)


# A held position's figures as shown (keys of the formatting table shared/figures.py), in order:
# the CLI's table and the web page's columns.
HELD_FIGURES = (
    "quantity",
    "cost_price",
    "cost_basis",
    "close",
    "market_value",
    "unrealised_pnl",
    "unrealised_pnl_pct",
)


class HeldPosition(BaseModel):
    """A position valued at the close known on `as_of` (figures in the symbol's listing currency).

    `close` is None when the store has no bar within CLOSE_LOOKBACK_DAYS before `as_of`; then the
    market value and P&L are None too. `opened_at` stays as given: a position opened on `as_of` is
    one whose shares are still locked under T+1 in markets that have it."""

    account: str
    symbol: str
    quantity: float
    cost_price: float
    cost_basis: float = Field(description="quantity × cost price")
    opened_at: date | None
    as_of: date
    close: float | None
    close_date: date | None
    market_value: float | None
    unrealised_pnl: float | None
    unrealised_pnl_pct: float | None = Field(description="percent of the cost basis")
    days_held: int | None = Field(description="calendar days from opened_at to as_of")


class ImportResult(BaseModel):
    layout: str
    positions: int
    accounts: list[str]
    replaced: bool


class HoldingsService:
    def __init__(
        self,
        store: IPortfolioStore,
        symbols: SymbolCheck,
        bars: BarReader,
        now: Callable[[], datetime] = _now,
    ):
        self._store = store
        self._symbols = symbols
        self._bars = bars
        self._now = now

    def set(
        self,
        typed: str,
        quantity: float,
        cost_price: float,
        account: str = DEFAULT_ACCOUNT,
        opened_at: date | None = None,
    ) -> Position:
        if not (0 < quantity <= MAX_QUANTITY and 0 <= cost_price <= MAX_PRICE):
            raise InvalidPositionError(
                f"quantity must be > 0 and at most {MAX_QUANTITY:g}, cost ≥ 0 and at most {MAX_PRICE:g} "
                f"(got {quantity}, {cost_price})"
            )
        position = Position(
            account=check_name(account, "account"),
            symbol=self._symbols.resolve(typed),
            quantity=quantity,
            cost_price=cost_price,
            opened_at=opened_at,
        )
        self._store.put_positions([position], self._now(), replace_accounts=[])
        return position

    def remove(self, typed: str, account: str = DEFAULT_ACCOUNT) -> None:
        symbol = self._symbols.canonical(typed) or typed.strip()
        if not self._store.remove_position(account.strip(), symbol):
            symbol = self._symbols.resolve(typed)
            if not self._store.remove_position(account.strip(), symbol):
                raise PositionNotFoundError(
                    f"no position in {symbol} in account {account.strip()!r}", details={"symbol": symbol}
                )

    def import_file(self, data: bytes, account: str | None = None, replace: bool = False) -> ImportResult:
        """All or nothing: the whole file is read and checked (HOLDINGS_FILE_INVALID naming the line)
        before one transaction writes it; `replace` first clears the file's accounts."""
        read = read_holdings(data, check_name(account, "account") if account else None)
        known = self._symbols.known()
        canonical: dict[str, str] = {}
        for row in read.rows:
            code = self._symbols.canonical(row.symbol)
            if code is not None and code in known:
                canonical[row.symbol] = code
        positions = checked_positions(read, canonical)
        accounts = sorted({p.account for p in positions})
        self._store.put_positions(positions, self._now(), replace_accounts=accounts if replace else [])
        return ImportResult(layout=read.layout, positions=len(positions), accounts=accounts, replaced=replace)

    def stored(self, account: str | None = None) -> list[Position]:
        return self._store.positions(account)

    def _close(self, symbol: str, as_of: date) -> DailyBarDTO | None:
        bars = self._bars(symbol, as_of, as_of - timedelta(days=CLOSE_LOOKBACK_DAYS), as_of)
        dated = [b for b in bars if b.trade_date <= as_of]
        return max(dated, key=lambda b: b.trade_date) if dated else None

    def _value(self, position: Position, as_of: date) -> HeldPosition:
        bar = self._close(position.symbol, as_of)
        basis = position.quantity * position.cost_price
        value = position.quantity * bar.close if bar else None
        pnl = value - basis if value is not None else None
        return HeldPosition(
            account=position.account,
            symbol=position.symbol,
            quantity=position.quantity,
            cost_price=position.cost_price,
            cost_basis=basis,
            opened_at=position.opened_at,
            as_of=as_of,
            close=bar.close if bar else None,
            close_date=bar.trade_date if bar else None,
            market_value=value,
            unrealised_pnl=pnl,
            unrealised_pnl_pct=pnl / basis * 100 if pnl is not None and basis > 0 else None,
            days_held=(as_of - position.opened_at).days if position.opened_at else None,
        )

    def positions(self, as_of: date, account: str | None = None) -> list[HeldPosition]:
        """Every position held on `as_of` (one opened later was not), valued at the close known then."""
        held = [p for p in self._store.positions(account) if p.opened_at is None or p.opened_at <= as_of]
        return [self._value(p, as_of) for p in held]

    def position(self, symbol: str, as_of: date, account: str | None = None) -> HeldPosition | None:
        """The holding of `symbol` on `as_of`, or None. Without `account`, the accounts' positions in
        it combined: quantities added, the cost price weighted by quantity, and the latest `opened_at`
        (so a T+1 check errs towards locked shares); its account reads '*' when several held it."""
        code = self._symbols.canonical(symbol) or symbol.strip()
        found = [p for p in self._store.positions(account) if p.symbol == code]
        found = [p for p in found if p.opened_at is None or p.opened_at <= as_of]
        if not found:
            return None
        if len(found) == 1:
            return self._value(found[0], as_of)
        quantity = sum(p.quantity for p in found)
        opened = [p.opened_at for p in found if p.opened_at]
        merged = Position(
            account="*",
            symbol=code,
            quantity=quantity,
            cost_price=sum(p.quantity * p.cost_price for p in found) / quantity,
            opened_at=max(opened) if opened else None,
        )
        return self._value(merged, as_of)
