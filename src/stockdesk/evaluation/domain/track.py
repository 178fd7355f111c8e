"""What `stockdesk track` reads (the ledger's entries, application/ledger_entries.py) and what it answers.

The JSON of a TrackReport is a contract: `entries` (one per ledger entry, with `forward_returns` and
`excess_returns` keyed by horizon as in evaluate's points), `live` and `retrospective` (the scores of
each kind, never mixed), `headline` (one sentence over live entries only) and `portfolio`.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pydantic import BaseModel, Field, field_validator

from stockdesk.evaluation.domain.dtos import trading_day_horizons

MODES = ("rules", "experts", "full")


class TrackConfig(BaseModel):
    horizons: list[int] = Field(default_factory=lambda: [5, 20, 60])
    mode: str | None = Field(default=None, description="only entries of this mode (rules, experts, full)")
    benchmark: str | None = Field(
        default=None, description="a stored symbol; None: the equal-weight index of every stored symbol"
    )
    hold_band: float = Field(default=0.03, gt=0.0, lt=1.0, description="|return| within which HOLD hits")
    slippage: float = Field(default=0.0005, ge=0.0, lt=0.05, description="per side, as in evaluate")
    capital: float = Field(default=1_000_000.0, gt=0.0, description="the follow-the-verdicts portfolio")
    bootstrap_resamples: int = Field(default=1000, ge=100, le=100_000)
    bootstrap_seed: int = 20240101

    @field_validator("horizons")
    @classmethod
    def _horizons(cls, value: list[int]) -> list[int]:
        return trading_day_horizons(value)

    @field_validator("mode")
    @classmethod
    def _mode(cls, value: str | None) -> str | None:
        if value is not None and value not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {value!r}")
        return value


class ChainStatus(BaseModel):
    """The ledger's chain check, as `track verify` and GET /track/verify report it."""

    ok: bool
    entries: int
    head_hash: str
    first_bad_seq: int | None = None
    first_bad_entry_id: str | None = None
    problem: str | None = None
    message: str = Field(description="the one line `track verify` prints")


class TrackedEntry(BaseModel):
    seq: int
    entry_id: str
    symbol: str
    as_of: date
    created_at: datetime
    mode: str
    model: str
    action: str
    confidence: float
    probability_up: float | None
    retrospective: bool
    session_id: str | None
    entry_date: date | None
    filled: bool
    matured: dict[str, bool] = Field(description="horizon -> the stored bars hold its h-th trading day")
    forward_returns: dict[str, float | None] = Field(description="horizon -> return as a fraction")
    excess_returns: dict[str, float | None] = Field(description="horizon -> return over the benchmark's")


class TrackReport(BaseModel):
    config: dict[str, Any]
    ledger: dict[str, Any] = Field(description="entries, live, retrospective, chain head")
    headline: str = Field(description="one sentence over matured live entries (never retrospective)")
    entries: list[TrackedEntry]
    live: dict[str, Any] = Field(description="scores of live entries: all, by mode, by model, by expert")
    retrospective: dict[str, Any] = Field(description="the same over retrospective entries")
    portfolio: dict[str, Any] = Field(
        description="evaluate's follow-the-verdict book: dates, benchmark, curves and metrics per kind"
    )
    notes: list[str] = Field(default_factory=list)
