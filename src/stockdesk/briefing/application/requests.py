"""What a briefing is asked for, checked once: the date, the tickers (order kept), the base script.

Tickers are upper-cased and deduplicated keeping their first position; 1 to MAX_TICKERS of them,
each letters/digits with `.` or `-` inside (AAPL, BRK.B, 600519.SH). A bad list is a 400.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from stockdesk.briefing.domain.dtos import (
    CLOSING_CHAPTER,
    MAX_TICKERS,
    TICKER_CHAPTER_PREFIX,
    BaseScript,
)
from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.tasks import jsonable

SCHEMA_VERSION = 1  # bump when a stored ticker part's meaning changes: old jobs then do not resume
MAX_ROUNDS_LIMIT = 10
_TICKER = re.compile(r"^[A-Z0-9](?:[A-Z0-9.\-]{0,18}[A-Z0-9])?$")


def normalise_tickers(raw: str | Sequence[str]) -> list[str]:
    """`"aapl, NVDA,aapl"` or `["aapl", "NVDA"]` -> `["AAPL", "NVDA"]` (first position kept)."""
    pieces = raw.split(",") if isinstance(raw, str) else list(raw)
    tickers: list[str] = []
    for piece in pieces:
        if not isinstance(piece, str):
            raise BadRequestException(f"tickers must be text, got {piece!r}", code="INVALID_TICKERS")
        ticker = piece.strip().upper()
        if not ticker:
            continue
        if not _TICKER.match(ticker):
            raise BadRequestException(
                f"bad ticker {piece.strip()!r}: letters and digits, '.' or '-' inside (e.g. AAPL, BRK.B)",
                code="INVALID_TICKERS",
            )
        if ticker not in tickers:
            tickers.append(ticker)
    if not tickers:
        raise BadRequestException("give at least one ticker, e.g. AAPL,NVDA", code="INVALID_TICKERS")
    if len(tickers) > MAX_TICKERS:
        raise BadRequestException(
            f"at most {MAX_TICKERS} tickers per briefing (got {len(tickers)})", code="INVALID_TICKERS"
        )
    return tickers


def _bad_base(message: str) -> BadRequestException:
    return BadRequestException(f"base script: {message}", code="BAD_BASE_SCRIPT")


def read_base_script(data: Any, day: date) -> BaseScript:
    """A base script (opening + theme [+ closing]) in the spec 7.4 shape, checked strictly.

    Turn ids must be 0..n-1 in order; chapters must be in order, contiguous and cover every turn;
    chapter names are unique and `ticker:` names are reserved; a `closing` chapter must be the last;
    a `date`, when given, must be the briefing's date.
    """
    if isinstance(data, BaseScript):
        data = data.model_dump(mode="json")
    if not isinstance(data, Mapping):
        raise _bad_base(f"expected a JSON object with chapter and scripts, got {type(data).__name__}")
    try:
        base = BaseScript.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise _bad_base(f"{where}: {first['msg']}") from None
    expected_day = day.strftime("%Y%m%d")
    if base.date is not None and base.date != expected_day:
        raise _bad_base(f"it is dated {base.date}, the briefing is for {expected_day}")
    for position, turn in enumerate(base.scripts):
        if turn.id != position:
            raise _bad_base(
                f"turn ids must be 0..{len(base.scripts) - 1} in order (turn {position} has id {turn.id})"
            )
    if base.scripts and not base.chapter:
        raise _bad_base("it has turns but no chapter (e.g. opening, theme)")
    covered = 0
    names: set[str] = set()
    for chapter in base.chapter:
        if chapter.name.startswith(TICKER_CHAPTER_PREFIX):
            raise _bad_base(
                f"chapter names starting with '{TICKER_CHAPTER_PREFIX}' are reserved ({chapter.name!r})"
            )
        if chapter.name in names:
            raise _bad_base(f"chapter {chapter.name!r} appears twice")
        names.add(chapter.name)
        if chapter.start_id != covered or chapter.end_id < chapter.start_id:
            raise _bad_base(
                f"chapter {chapter.name!r} covers {chapter.start_id}..{chapter.end_id}; chapters must be "
                f"in order, contiguous and non-empty (this one should start at {covered})"
            )
        covered = chapter.end_id + 1
    if covered != len(base.scripts):
        raise _bad_base(f"chapters cover ids 0..{covered - 1} but there are {len(base.scripts)} turns")
    if CLOSING_CHAPTER in names and base.chapter[-1].name != CLOSING_CHAPTER:
        raise _bad_base(f"the {CLOSING_CHAPTER!r} chapter must be the last one")
    return base


class BriefingRequest(BaseModel):
    """A checked request; `config()` is its identity as a durable job."""

    model_config = ConfigDict(frozen=True)

    date: date
    tickers: list[str] = Field(min_length=1, max_length=MAX_TICKERS)
    base_script: BaseScript | None = None
    max_rounds: int | None = Field(default=None, ge=1, le=MAX_ROUNDS_LIMIT)

    @property
    def day(self) -> str:
        return self.date.strftime("%Y%m%d")

    def config(self) -> dict[str, Any]:
        plain = jsonable(self.model_dump(mode="json"))
        assert isinstance(plain, dict)
        return {"schema": SCHEMA_VERSION, **plain}

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> BriefingRequest:
        return cls.model_validate({k: v for k, v in config.items() if k != "schema"})


def briefing_request(
    day: date, tickers: str | Sequence[str], base_script: Any = None, max_rounds: int | None = None
) -> BriefingRequest:
    """Check everything a briefing is given (400s with distinct codes) before any work."""
    names = normalise_tickers(tickers)
    base = None if base_script is None else read_base_script(base_script, day)
    if max_rounds is not None and not 1 <= max_rounds <= MAX_ROUNDS_LIMIT:
        raise BadRequestException(
            f"max_rounds must be 1..{MAX_ROUNDS_LIMIT} (got {max_rounds})", code="INVALID_MAX_ROUNDS"
        )
    return BriefingRequest(date=day, tickers=names, base_script=base, max_rounds=max_rounds)
