"""What an entry point hands the ledger (a VerdictRecord) and the inputs hash it carries."""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic import BaseModel, Field

from stockdesk.ledger.domain.canonical import canonical_json, sha256_hex


class ExpertVoiceRecord(BaseModel):
    stance: str = Field(description="bullish | bearish | neutral")
    confidence: float


class VerdictRecord(BaseModel):
    """One verdict to append; the ledger adds seq, created_at, retrospective and the hashes."""

    entry_id: str = Field(min_length=1, max_length=64, description="unique: appending it again is a no-op")
    symbol: str
    as_of: date
    mode: str = Field(pattern="^(rules|experts|full)$")
    model: str
    action: str = Field(pattern="^(BUY|SELL|HOLD)$")
    confidence: float = Field(ge=0.0, le=1.0)
    position_percent: float = Field(default=0.0, ge=0.0, le=1.0, description="a fraction of the book")
    probability_up: float | None = Field(default=None, ge=0.0, le=1.0)
    session_id: str | None = None
    verdict: dict[str, Any]
    experts: dict[str, ExpertVoiceRecord] = Field(default_factory=dict)
    inputs_hash: str
    tokens: int = 0
    llm_calls: int = 0
    cost_usd: float | None = None


def prompt_hash(prompt: str) -> str:
    """sha256 of a prompt's text (the ledger keeps hashes, never prompt text)."""
    return sha256_hex(prompt)


def inputs_hash(
    snapshots: dict[str, Any], prompt_hashes: dict[str, str], model: str, seed: int | None
) -> str:
    """sha256 of the canonical JSON of what the verdict was computed from: the experts' snapshots
    (their indicators), the prompts' hashes, the model and the seed. Same inputs, same hash."""
    return sha256_hex(
        canonical_json({"snapshots": snapshots, "prompts": prompt_hashes, "model": model, "seed": seed})
    )
