"""The digest a scheduled run hands to notifications: what changed since the last run, then the table.

Every field is data (symbols, actions, figures); no sentence. The sentences are written by code from
the shared catalogue in the digest's language (`application/digest_text.py`), so no model ever
writes notification text.
"""

from __future__ import annotations

import hashlib
from datetime import date
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class ChangeKind(StrEnum):
    NEW_BUY = "new_buy"
    NEW_SELL = "new_sell"
    HELD_TRIM = "held_trim"
    HELD_EXIT = "held_exit"
    STOP_CROSSED = "stop_crossed"


class DigestChange(BaseModel):
    """One change since the last run (a new BUY or SELL, a held name turning to trim or exit, a stop
    level crossed)."""

    model_config = ConfigDict(frozen=True)

    kind: ChangeKind
    symbol: str = Field(min_length=1, max_length=32)
    name: str = ""
    before: str | None = Field(default=None, description="the action at the last run; None: not in it")
    after: str = Field(description="the action now (BUY/SELL/HOLD, or ADD/HOLD/TRIM/EXIT for a holder)")
    level: float | None = Field(default=None, description="stop_crossed: the stop level crossed")
    price: float | None = Field(default=None, description="stop_crossed: the close that crossed it")


class DigestRow(BaseModel):
    """One symbol of the run's table."""

    model_config = ConfigDict(frozen=True)

    symbol: str = Field(min_length=1, max_length=32)
    name: str = ""
    action: str
    probability: float | None = Field(
        default=None, ge=0.0, le=1.0, description="calibrated P(up); None: uncalibrated"
    )
    sample_size: int | None = Field(default=None, ge=0, description="verdicts the calibration rests on")
    close: float | None = None
    change_pct: float | None = Field(default=None, description="the day's change in percent (1.5 = +1.5%)")
    stop: float | None = None
    target: float | None = None


class Digest(BaseModel):
    """A run's message, before it is worded: one per run, the same for every channel."""

    model_config = ConfigDict(frozen=True)

    title: str = Field(min_length=1, max_length=200, description="what the run covers, e.g. the watchlist")
    as_of: date
    run: str = Field(min_length=1, max_length=64, description="the run's id (the schedule's run)")
    language: Literal["en", "zh"] = "en"
    changes: list[DigestChange] = Field(default_factory=list)
    rows: list[DigestRow] = Field(default_factory=list)
    report_url: str | None = Field(default=None, description="the full report, when a public URL is set")

    def digest_hash(self) -> str:
        """sha256 of the digest's JSON: the same digest is the same hash (what idempotence keys on)."""
        return hashlib.sha256(self.model_dump_json().encode("utf-8")).hexdigest()
