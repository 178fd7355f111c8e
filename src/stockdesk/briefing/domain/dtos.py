"""Ticker briefing script types (spec 7): script turns, chapters, ticker sections, the final script,
and what the tool-less worker and refiner answer.

The final `BriefingScript` dumps to exactly the spec 7.4 top-level shape
`{date, user_tickers, chapter, scripts}`; a base script (opening + theme, optionally a closing) is
the same shape, read strictly. Model answers are kept loose where code re-checks them (speakers,
sources, numbers), so one bad turn is dropped instead of failing the whole answer.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from stockdesk.debate.application import Source

HOST = "host"
ANALYST = "analyst"
SPEAKERS: tuple[str, ...] = (HOST, ANALYST)  # the only speakers a worker may write
TICKER_CHAPTER_PREFIX = "ticker:"
CLOSING_CHAPTER = "closing"  # a base chapter that goes after the ticker chapters
MAX_TICKERS = 10
MAX_TURNS_PER_TICKER = 10
MIN_TURNS_PER_TICKER = 4  # the worker prompt's "4 to 10 turns"; fewer is re-asked, then recorded


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ScriptTurn(_Strict):
    id: int = Field(ge=0)
    speaker: str = Field(min_length=1)
    text: str = Field(min_length=1)
    sources: list[Source] = Field(default_factory=list)


class Chapter(_Strict):
    name: str = Field(min_length=1)
    start_id: int = Field(ge=0)
    end_id: int = Field(ge=0)


class TickerSection(BaseModel):
    ticker: str
    start_id: int
    end_id: int


class BriefingScript(_Strict):
    """The spec 7.4 `script.json`: `model_dump(mode="json")` has exactly these four keys."""

    date: str = Field(pattern=r"^\d{8}$", description="YYYYMMDD")
    user_tickers: list[str]
    chapter: list[Chapter]
    scripts: list[ScriptTurn]


class BaseScript(_Strict):
    """A `--base-script` file: the 7.4 shape; `date` and `user_tickers` may be left out."""

    date: str | None = Field(default=None, pattern=r"^\d{8}$")
    user_tickers: list[str] = Field(default_factory=list)
    chapter: list[Chapter] = Field(default_factory=list)
    scripts: list[ScriptTurn] = Field(default_factory=list)

    def speakers(self) -> list[str]:
        return list(dict.fromkeys(t.speaker for t in self.scripts))


# ---- what the models answer ---------------------------------------------------------------------
class WorkerTurn(BaseModel):
    """One turn as the worker writes it: `id` is ignored (code renumbers), sources are short ids
    (or whole source objects) re-validated in code against the worker's inputs."""

    id: int | None = None
    speaker: str = ""
    text: str = ""
    sources: list[str | dict[str, Any]] = Field(default_factory=list, max_length=8)


class WorkerReply(BaseModel):
    ticker: str = ""
    scripts: list[WorkerTurn] = Field(max_length=16)


class RefinerEdit(BaseModel):
    """A change of one existing turn's speaker and/or text; anything else is not expressible."""

    id: int
    speaker: str | None = None
    text: str | None = None


class RefinerReply(BaseModel):
    edits: list[RefinerEdit] = Field(default_factory=list, max_length=40)


class MinimalTurn(BaseModel):
    """The refiner's view of a turn (spec 7.3 `scripts_minimal`)."""

    id: int
    speaker: str
    text: str
