"""Application interface of the portfolio context: other contexts import from here only."""

from stockdesk.portfolio.application.holdings_import import LAYOUTS, read_holdings
from stockdesk.portfolio.application.services import (
    HELD_FIGURES,
    HeldPosition,
    HoldingsService,
    ImportResult,
    WatchlistService,
)
from stockdesk.portfolio.application.symbols import SymbolCheck
from stockdesk.portfolio.domain.errors import (
    HoldingsFileInvalidError,
    PositionNotFoundError,
    UnknownSymbolError,
    WatchlistNotFoundError,
)
from stockdesk.portfolio.domain.model import DEFAULT_ACCOUNT, Position, Watchlist, WatchlistMember
from stockdesk.portfolio.domain.view import (
    BookRisk,
    NameAllocation,
    NameVerdict,
    PortfolioView,
    Reason,
    Trade,
)

__all__ = [
    "DEFAULT_ACCOUNT",
    "HELD_FIGURES",
    "LAYOUTS",
    "BookRisk",
    "HeldPosition",
    "HoldingsFileInvalidError",
    "HoldingsService",
    "ImportResult",
    "NameAllocation",
    "NameVerdict",
    "PortfolioView",
    "Position",
    "PositionNotFoundError",
    "Reason",
    "SymbolCheck",
    "Trade",
    "UnknownSymbolError",
    "Watchlist",
    "WatchlistMember",
    "WatchlistNotFoundError",
    "WatchlistService",
    "read_holdings",
]
