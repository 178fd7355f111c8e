"""LedgerService: append verdicts to the chain, read them back, verify the chain.

Appends go through the store's lock, so writers in several processes (batch analyses on Ray, a web
server and a CLI on one database) extend one chain. `entry_id` is unique: appending a record again
returns the stored entry and appends nothing (a rerun of the same session); a retried session has
its own id and so its own entry (the chain is append-only).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from stockdesk.ledger.application.records import VerdictRecord
from stockdesk.ledger.domain.canonical import canonical_json
from stockdesk.ledger.domain.chain import ChainCheck, verify_chain
from stockdesk.ledger.domain.entry import LedgerColumns, LedgerEntry, LedgerFacts, is_retrospective, seal
from stockdesk.ledger.domain.ports import ILedgerStore

PROBABILITY_DIGITS = 6  # stored and hashed rounded: the same figure on SQLite and PostgreSQL


def _now() -> datetime:
    return datetime.now(UTC)


class LedgerService:
    def __init__(self, store: ILedgerStore, *, clock: Callable[[], datetime] = _now):
        self._store = store
        self._clock = clock

    def append(self, record: VerdictRecord) -> LedgerEntry:
        created_at = self._clock().astimezone(UTC)
        fields = {
            "entry_id": record.entry_id,
            "symbol": record.symbol,
            "as_of": record.as_of,
            "created_at": created_at,
            "mode": record.mode,
            "model": record.model,
            "action": record.action,
            "confidence": round(record.confidence, PROBABILITY_DIGITS),
            "position_percent": round(record.position_percent, PROBABILITY_DIGITS),
            "probability_up": (
                None if record.probability_up is None else round(record.probability_up, PROBABILITY_DIGITS)
            ),
            "session_id": record.session_id,
            "verdict_json": canonical_json(record.verdict),
            "experts_json": canonical_json({k: v.model_dump() for k, v in record.experts.items()}),
            "inputs_hash": record.inputs_hash,
            "tokens": record.tokens,
            "llm_calls": record.llm_calls,
            "cost_usd": None if record.cost_usd is None else round(record.cost_usd, 6),
            "retrospective": is_retrospective(record.as_of, created_at),
        }
        return self._store.append(record.entry_id, lambda seq, prev: seal(fields, seq, prev))

    def entries(self) -> list[LedgerEntry]:
        """Every entry in seq order."""
        return list(self._store.entries())

    def facts(self) -> list[LedgerFacts]:
        """Every entry in seq order without its verdict text and hashes (what the track record scores)."""
        return list(self._store.facts())

    def fact_columns(self) -> LedgerColumns:
        """`facts()` column by column, in one read (scoring 100,000 entries needs no object per entry)."""
        return self._store.fact_columns()

    def verify(self) -> ChainCheck:
        """Recompute every hash in order; the first entry that breaks the chain is named."""
        return verify_chain(self._store.stored_rows())
