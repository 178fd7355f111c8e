"""Checking a chain: recompute every hash in seq order and name the first entry that does not fit."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, Field

from stockdesk.ledger.domain.entry import GENESIS, chain_hash


class BadEntry(BaseModel):
    seq: int
    entry_id: str
    problem: str = Field(description="what does not fit, in words")


class ChainCheck(BaseModel):
    ok: bool
    entries: int = Field(description="entries read")
    head_hash: str = Field(description="entry_hash of the newest entry (GENESIS when empty)")
    first_bad: BadEntry | None = None

    def line(self) -> str:
        """The one line `track verify` prints."""
        if self.ok:
            return f"ledger ok: {self.entries} entries, head {self.head_hash}"
        bad = self.first_bad
        assert bad is not None
        return f"ledger broken at seq {bad.seq} (entry {bad.entry_id}): {bad.problem}"


def _problem(entry: Mapping[str, Any], expected_seq: int, prev_hash: str) -> str | None:
    seq, stored_prev = entry["seq"], entry["prev_hash"]
    if seq != expected_seq:
        return (
            f"seq {expected_seq} is missing (deleted?): seq {seq} follows seq {expected_seq - 1}"
            if seq > expected_seq
            else f"seq {seq} repeats or is out of order (expected {expected_seq})"
        )
    if stored_prev != prev_hash:
        return f"prev_hash {stored_prev[:12]}... is not the previous entry's hash {prev_hash[:12]}..."
    if chain_hash(stored_prev, entry) != entry["entry_hash"]:
        return "its stored columns do not match its entry_hash (edited)"
    return None


def verify_chain(entries: Iterable[Mapping[str, Any]]) -> ChainCheck:
    """Walk the stored rows (every column, by name) in seq order; the first one that breaks the
    chain rule ends the check. Rows, not LedgerEntry objects: nothing is converted or validated on
    the way, so what is checked is exactly what is stored."""
    prev, count = GENESIS, 0
    for entry in entries:
        problem = _problem(entry, count + 1, prev)
        if problem is not None:
            bad = BadEntry(seq=entry["seq"], entry_id=str(entry["entry_id"]), problem=problem)
            return ChainCheck(ok=False, entries=count, head_hash=prev, first_bad=bad)
        prev, count = entry["entry_hash"], count + 1
    return ChainCheck(ok=True, entries=count, head_hash=prev)
