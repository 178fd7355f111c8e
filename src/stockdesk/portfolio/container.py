"""Composition root of the portfolio: the watchlist and holdings services over the SQL store, with
symbols checked and closes read through the data context's use cases; the portfolio view and its
jobs (kind `portfolio_view`) in the shared task store."""

from __future__ import annotations

from functools import cached_property

from stockdesk.data_engineering.application import (
    GetDailyBarsUseCase,
    GetMarketFramesUseCase,
    ListSecuritiesUseCase,
)
from stockdesk.portfolio.application import HoldingsService, SymbolCheck, WatchlistService
from stockdesk.portfolio.application.market import PortfolioMarket
from stockdesk.portfolio.application.view_jobs import PortfolioViewJobs
from stockdesk.portfolio.application.view_service import PortfolioViewService, VerdictSource
from stockdesk.portfolio.infrastructure.store import SqlPortfolioStore
from stockdesk.shared.db import Database
from stockdesk.shared.db.task_store import SqlTaskStore


class PortfolioContainer:
    def __init__(
        self,
        database: Database,
        securities: ListSecuritiesUseCase,
        bars: GetDailyBarsUseCase,
        frames: GetMarketFramesUseCase | None = None,
        verdicts: VerdictSource | None = None,
    ):
        """`frames` and `verdicts` (the coordinator's rules verdicts, as NameVerdicts) serve the
        portfolio view only."""
        self._database = database
        self._store = SqlPortfolioStore(database)
        self._securities = securities
        self._symbols = SymbolCheck(securities.execute)
        self._bars = bars
        self._frames = frames
        self._verdicts = verdicts

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

    @cached_property
    def view(self) -> PortfolioViewService:
        if self._frames is None or self._verdicts is None:
            raise RuntimeError("the portfolio view needs the market frames and a verdict source")
        return PortfolioViewService(
            self.watchlists, self.holdings, PortfolioMarket(self._securities, self._frames), self._verdicts
        )

    @cached_property
    def view_jobs(self) -> PortfolioViewJobs:
        """The portfolio view as durable jobs: one task per name's verdict, then the assembly."""
        return PortfolioViewJobs(self.view, SqlTaskStore(self._database))
