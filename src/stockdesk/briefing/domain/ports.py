"""Ports of the ticker briefing script (spec 7): the tool-less worker (one ticker's turns) and the
tool-less refiner (transition edits of the merged script).

Both take everything they may use in their input; code re-checks what they answer (speakers,
sources, numbers, ids), so the ports only report what was sent and what came back.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from stockdesk.briefing.domain.dtos import (
    BaseScript,
    MinimalTurn,
    RefinerReply,
    TickerSection,
    WorkerReply,
)
from stockdesk.debate.application import CitableSource, PriceSummary
from stockdesk.llm_platform.application.agent import Agent, AgentAnswer


class WorkerInput(BaseModel):
    """Spec 7.2: the base script, one ticker's debate JSON, its 5-minute bars, where it stands."""

    ticker: str
    date: str = Field(description="YYYYMMDD")
    index: int = Field(ge=1, description="1-based position in the ticker list")
    total: int = Field(ge=1)
    tickers: list[str]
    base_script: BaseScript | None = None
    debate: dict[str, Any] = Field(description="the panel's debate JSON {ticker, date, rounds, conclusion}")
    intraday_rows: list[dict[str, Any]] = Field(default_factory=list)
    intraday_summary: PriceSummary | None = None
    intraday_note: str = Field(default="", description="why there are no rows, when there are none")
    sources: list[CitableSource] = Field(
        default_factory=list, description="every source of the debate and the base script, with short ids"
    )


WorkerAnswer = AgentAnswer[WorkerReply]


class RefinerInput(BaseModel):
    """Spec 7.3: the merged script's minimal form, the ticker order and the ticker sections."""

    scripts: list[MinimalTurn]
    tickers: list[str]
    sections: list[TickerSection]
    speakers: list[str]


RefinerAnswer = AgentAnswer[RefinerReply]


# The desk's one agent contract. The worker: one call, no tools, the ticker's turns; a re-ask's
# `feedback` (what the first script got wrong) ends its prompt. The refiner: one call, no tools,
# edits of existing turns; asked once. Both raise LLMOutputParseError on an unusable answer.
IScriptWorkerPort = Agent[WorkerInput, WorkerAnswer]
IScriptRefinerPort = Agent[RefinerInput, RefinerAnswer]
