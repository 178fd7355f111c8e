"""Composition root of the portfolio: the watchlist and holdings services over the SQL store, with
symbols checked and closes read through the data context's use cases."""

from __future__ import annotations

from functools import cached_property

from stockdesk.data_engineering.application import GetDailyBarsUseCase, ListSecuritiesUseCase
from stockdesk.portfolio.application import HoldingsService, SymbolCheck, WatchlistService
from stockdesk.portfolio.infrastructure.store import SqlPortfolioStore
from stockdesk.shared.db import Database


class PortfolioContainer:
    def __init__(self, database: Database, securities: ListSecuritiesUseCase, bars: GetDailyBarsUseCase):
        self._store = SqlPortfolioStore(database)
        self._symbols = SymbolCheck(securities.execute)
        self._bars = bars

    @cached_property
    def watchlists(self) -> WatchlistService:
        return WatchlistService(self._store, self._symbols)

    @cached_property
    def holdings(self) -> HoldingsService:
        return HoldingsService(
            self._store,
            self._symbols,
            lambda symbol, as_of, start, end: self._bars.execute(symbol, as_of=as_of, start=start, end=end),
        )
