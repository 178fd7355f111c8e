"""The verdict ledger as `stockdesk track` reads it, through the ledger context's application
interface (LedgerService)."""

from __future__ import annotations

from collections.abc import Callable

from stockdesk.evaluation.domain.track import ChainStatus
from stockdesk.ledger.application import LedgerColumns, LedgerService


class LedgerEntries:
    def __init__(self, service: Callable[[], LedgerService]):
        self._service = service

    def entries(self) -> LedgerColumns:
        """Every entry in seq order, column by column."""
        return self._service().fact_columns()

    def verify(self) -> ChainStatus:
        """Recompute the chain; the first bad entry named."""
        check = self._service().verify()
        bad = check.first_bad
        return ChainStatus(
            ok=check.ok,
            entries=check.entries,
            head_hash=check.head_hash,
            first_bad_seq=bad.seq if bad else None,
            first_bad_entry_id=bad.entry_id if bad else None,
            problem=bad.problem if bad else None,
            message=check.line(),
        )
