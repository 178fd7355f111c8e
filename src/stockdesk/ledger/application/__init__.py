"""Application interface of the ledger: other contexts append and read verdicts through this."""

from stockdesk.ledger.application.ledger_service import LedgerService
from stockdesk.ledger.application.records import ExpertVoiceRecord, VerdictRecord, inputs_hash, prompt_hash
from stockdesk.ledger.domain.canonical import canonical_json, sha256_hex
from stockdesk.ledger.domain.chain import BadEntry, ChainCheck
from stockdesk.ledger.domain.entry import (
    GENESIS,
    RETROSPECTIVE_DAYS,
    LedgerColumns,
    LedgerEntry,
    LedgerFacts,
    is_retrospective,
)

__all__ = [
    "GENESIS",
    "RETROSPECTIVE_DAYS",
    "BadEntry",
    "ChainCheck",
    "ExpertVoiceRecord",
    "LedgerColumns",
    "LedgerEntry",
    "LedgerFacts",
    "LedgerService",
    "VerdictRecord",
    "canonical_json",
    "inputs_hash",
    "is_retrospective",
    "prompt_hash",
    "sha256_hex",
]
