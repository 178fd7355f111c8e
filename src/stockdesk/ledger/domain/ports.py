"""The ledger's store: serialised appends (one chain, never a fork) and reads in seq order."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from typing import Any

from stockdesk.ledger.domain.entry import LedgerColumns, LedgerEntry, LedgerFacts

Sealer = Callable[[int, str], LedgerEntry]
"""(next seq, previous entry's hash) -> the sealed entry to store."""


class ILedgerStore(ABC):
    @abstractmethod
    def append(self, entry_id: str, seal: Sealer) -> LedgerEntry:
        """Under a lock every writer takes (other processes too): the stored entry `entry_id` if there
        is one (a rerun appends nothing), else `seal(head seq + 1, head hash)` stored and returned."""

    @abstractmethod
    def entries(self) -> Iterator[LedgerEntry]:
        """Every entry in seq order, as stored (nothing recomputed)."""

    @abstractmethod
    def facts(self) -> Iterator[LedgerFacts]:
        """Every entry in seq order without its verdict text and hashes (scoring reads these)."""

    @abstractmethod
    def fact_columns(self) -> LedgerColumns:
        """The same facts column by column (one read; what the track record scores)."""

    @abstractmethod
    def stored_rows(self) -> Iterator[dict[str, Any]]:
        """Every row as stored, column name -> value, in seq order (what verify checks)."""
