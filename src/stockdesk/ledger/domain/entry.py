"""A ledger entry and the chain rule that makes an edited, deleted or inserted row detectable.

Chain rule: entries are numbered `seq` = 1, 2, 3, ... with no gap. Each entry stores `prev_hash`,
the `entry_hash` of the entry before it (GENESIS, 64 zeros, for seq 1), and

    entry_hash = sha256(prev_hash + canonical_json({every other stored column}))

so changing any stored value of an entry changes its hash, and removing or inserting an entry
breaks the next entry's `prev_hash` (and leaves a gap in `seq`). Deleting the newest entries leaves a
shorter chain that still verifies: only a copy of the head hash kept elsewhere shows that (`track
verify` prints it for that reason).

Retrospective: an entry whose `as_of` lies more than RETROSPECTIVE_DAYS (4) calendar days before the
UTC day it was created is `retrospective` (a replay of the past, whose outcome could be known when it
was made). Four days keeps a Friday-close analysis run over the weekend, or after a long weekend,
live; live and retrospective entries are never mixed in one headline figure.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import UTC, date, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from stockdesk.ledger.domain.canonical import sha256_hex

GENESIS = "0" * 64
RETROSPECTIVE_DAYS = 4
MODES = ("rules", "experts", "full")


def utc(moment: datetime) -> datetime:
    """`moment` in UTC; a naive value (SQLite hands them back so) is taken as UTC, as it was written."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def is_retrospective(as_of: date, created_at: datetime) -> bool:
    """More than RETROSPECTIVE_DAYS calendar days between `as_of` and the UTC day of `created_at`."""
    return (utc(created_at).date() - as_of).days > RETROSPECTIVE_DAYS


class LedgerEntry(BaseModel):
    """One stored verdict. Every field but `entry_hash` is covered by `entry_hash`."""

    model_config = ConfigDict(frozen=True)

    seq: int = Field(ge=1, description="position in the chain: 1, 2, 3, ... without gaps")
    entry_id: str = Field(description="the session id for a research session's verdict")
    symbol: str
    as_of: date
    created_at: datetime = Field(description="UTC, when the entry was appended")
    mode: str = Field(description="rules | experts | full")
    model: str = Field(description="'rules' for a code-only verdict, else the session's LLM models")
    action: str = Field(description="BUY | SELL | HOLD")
    confidence: float = Field(description="the verdict's confidence, as it states it")
    position_percent: float = Field(description="the verdict's position, a fraction of the book")
    probability_up: float | None = Field(
        default=None, description="the verdict's own P(excess return > 0); None: uncalibrated"
    )
    session_id: str | None = None
    verdict_json: str = Field(description="canonical JSON of the verdict")
    experts_json: str = Field(description="canonical JSON of {expert: {stance, confidence}}")
    inputs_hash: str = Field(description="sha256 of the snapshots, prompt hashes, model and seed")
    tokens: int = 0
    llm_calls: int = 0
    cost_usd: float | None = Field(default=None, description="None: not priced")
    retrospective: bool
    prev_hash: str
    entry_hash: str


FLOAT_COLUMNS = ("confidence", "position_percent", "probability_up", "cost_usd")


def hashed_fields(values: Mapping[str, Any]) -> dict[str, Any]:
    """The stored columns as the hash sees them (`entry_hash` and `prev_hash` left out): created_at
    in UTC ISO text with microseconds, as_of in ISO text, a non-finite float as null. Every column
    is a scalar, so only those need spelling out (no walk over every value)."""
    out = dict(values)
    out.pop("entry_hash", None)
    out.pop("prev_hash", None)
    out["created_at"] = utc(values["created_at"]).isoformat(timespec="microseconds")
    out["as_of"] = values["as_of"].isoformat()
    for name in FLOAT_COLUMNS:
        value = out.get(name)
        if value is not None and not math.isfinite(value):
            out[name] = None
    return out


def chain_hash(prev_hash: str, fields: Mapping[str, Any]) -> str:
    """sha256(prev_hash + canonical JSON of the other columns): the chain rule. The same text as
    `canonical_json` of those columns (sorted keys, no spaces, UTF-8), built without its deep walk:
    100,000 entries hash in about a second."""
    text = json.dumps(hashed_fields(fields), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return sha256_hex(prev_hash + text)


def seal(fields: dict[str, Any], seq: int, prev_hash: str) -> LedgerEntry:
    """The entry at `seq` after `prev_hash`, with its hash computed (fields: every other column)."""
    body = {**fields, "seq": seq}
    return LedgerEntry(**body, prev_hash=prev_hash, entry_hash=chain_hash(prev_hash, body))


FACT_FIELDS = (
    "seq", "entry_id", "symbol", "as_of", "created_at", "mode", "model", "action", "confidence",
    "position_percent", "probability_up", "session_id", "experts_json", "tokens", "llm_calls",
    "cost_usd", "retrospective",
)  # fmt: skip


class LedgerFacts(BaseModel):
    """An entry without its verdict text and hashes: what scoring the track record reads (the
    verdict JSON is most of a row's bytes, and nothing in it is scored)."""

    model_config = ConfigDict(frozen=True)

    seq: int
    entry_id: str
    symbol: str
    as_of: date
    created_at: datetime
    mode: str
    model: str
    action: str
    confidence: float
    position_percent: float
    probability_up: float | None = None
    session_id: str | None = None
    experts_json: str
    tokens: int = 0
    llm_calls: int = 0
    cost_usd: float | None = None
    retrospective: bool


class LedgerColumns(BaseModel):
    """Every entry's facts, column by column (one list per LedgerFacts field, in seq order): how
    100,000 entries cross to the track record without 100,000 objects."""

    seq: list[int] = Field(default_factory=list)
    entry_id: list[str] = Field(default_factory=list)
    symbol: list[str] = Field(default_factory=list)
    as_of: list[date] = Field(default_factory=list)
    created_at: list[datetime] = Field(default_factory=list)
    mode: list[str] = Field(default_factory=list)
    model: list[str] = Field(default_factory=list)
    action: list[str] = Field(default_factory=list)
    confidence: list[float] = Field(default_factory=list)
    position_percent: list[float] = Field(default_factory=list)
    probability_up: list[float | None] = Field(default_factory=list)
    session_id: list[str | None] = Field(default_factory=list)
    experts_json: list[str] = Field(default_factory=list)
    tokens: list[int] = Field(default_factory=list)
    llm_calls: list[int] = Field(default_factory=list)
    cost_usd: list[float | None] = Field(default_factory=list)
    retrospective: list[bool] = Field(default_factory=list)
