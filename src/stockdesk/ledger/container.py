"""Composition root of the ledger: the service over the SQL store."""

from __future__ import annotations

from functools import cached_property

from stockdesk.ledger.application import LedgerService
from stockdesk.ledger.infrastructure.persistence.ledger_store import SqlLedgerStore
from stockdesk.shared.db import Database


class LedgerContainer:
    def __init__(self, database: Database):
        self._database = database

    @cached_property
    def service(self) -> LedgerService:
        return LedgerService(SqlLedgerStore(self._database))
