"""Composition root of the paper book: its store, the coordinator's rules verdicts, the store's bars."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

from stockdesk.coordinator.application import ResearchCoordinatorService
from stockdesk.data_engineering.application import GetMarketFramesUseCase, ListSecuritiesUseCase
from stockdesk.ledger.application import LedgerService
from stockdesk.paper.application.market import PaperMarket
from stockdesk.paper.application.service import PaperService
from stockdesk.paper.application.verdicts import RulesVerdicts
from stockdesk.paper.infrastructure.persistence.store import SqlPaperStore
from stockdesk.shared.db import Database


class PaperContainer:
    def __init__(
        self,
        *,
        database: Database,
        securities: ListSecuritiesUseCase,
        market_frames: GetMarketFramesUseCase,
        coordinator: Callable[[], ResearchCoordinatorService],
        ledger: Callable[[], LedgerService] | None = None,
        watchlist_symbols: Callable[[str], list[str]] | None = None,
    ):
        """Factories: nothing of the coordinator is built until a day is stepped."""
        self._database = database
        self._securities = securities
        self._frames = market_frames
        self._coordinator = coordinator
        self._ledger = ledger
        self._watchlist_symbols = watchlist_symbols

    @cached_property
    def store(self) -> SqlPaperStore:
        return SqlPaperStore(self._database)

    @cached_property
    def service(self) -> PaperService:
        return PaperService(
            self.store,
            RulesVerdicts(self._coordinator, self._ledger),
            PaperMarket(self._securities, self._frames),
            watchlist_symbols=self._watchlist_symbols,
        )
