"""What the briefing pipeline leaves behind: per-ticker parts, the checks' findings, the result.

A `TickerPart` is one ticker's debate JSON and its checked turns (stored as one durable task's
result); a `BriefingResult` is the final script with everything an audit needs to see why each
turn, source and edit is there or not.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from stockdesk.briefing.domain.dtos import BriefingScript, TickerSection
from stockdesk.debate.application import Source

TurnRejection = Literal["bad_speaker", "empty", "new_number", "over_limit"]
FindingKind = Literal["too_few_turns", "stance_mismatch", "unknown_name"]
EditRejection = Literal["unknown_id", "duplicate_id", "bad_speaker", "empty", "new_number", "copies_turn"]


class DraftTurn(BaseModel):
    """A checked turn before the merge gives it its id."""

    speaker: str
    text: str
    sources: list[Source] = Field(default_factory=list)


class RejectedTurn(BaseModel):
    ticker: str
    position: int = Field(description="0-based position in the worker's answer")
    speaker: str
    text: str
    reason: TurnRejection
    numbers: list[str] = Field(default_factory=list, description="numbers not in the worker's inputs")


class ScriptFinding(BaseModel):
    """What the whole-part checks (script_checks.py) still found in a ticker's final turns."""

    ticker: str
    kind: FindingKind
    detail: str
    turns: int | None = Field(default=None, description="too_few_turns: the turns the part has")
    expected: str | None = Field(default=None, description="stance_mismatch: the debate's action")
    found: str | None = Field(default=None, description="stance_mismatch: the script's, if any")
    name: str | None = Field(default=None, description="unknown_name: the name as written")


class AgentCall(BaseModel):
    """One worker or refiner call for the audit: the prompt, the raw answer, or why there is none."""

    input: str = ""
    output: str = ""
    tokens: int = 0
    error: str | None = None


class TickerPart(BaseModel):
    ticker: str
    debate: dict[str, Any] = Field(description="the panel's debate JSON {ticker, date, rounds, conclusion}")
    turns: list[DraftTurn]
    rejected: list[RejectedTurn] = Field(default_factory=list)
    dropped_sources: int = Field(default=0, description="cited sources not in the worker's inputs")
    fallback: bool = Field(default=False, description="the turns were written by code from the conclusion")
    worker: AgentCall = Field(default_factory=AgentCall)
    reask: AgentCall | None = Field(
        default=None, description="the one re-ask (too few turns, another stance), when there was one"
    )
    findings: list[ScriptFinding] = Field(default_factory=list)
    intraday_rows: int = 0


class EditDecision(BaseModel):
    id: int
    speaker: str | None = None
    text: str | None = None
    status: Literal["applied", "rejected", "unchanged"]
    reason: EditRejection | None = None
    numbers: list[str] = Field(default_factory=list)


class BriefingAudit(BaseModel):
    workers: dict[str, AgentCall] = Field(default_factory=dict)
    refiner: AgentCall = Field(default_factory=AgentCall)
    dropped_sources: dict[str, int] = Field(default_factory=dict)
    rejected_turns: list[RejectedTurn] = Field(default_factory=list)
    fallback_tickers: list[str] = Field(default_factory=list)
    edits: list[EditDecision] = Field(default_factory=list)
    reasks: dict[str, AgentCall] = Field(default_factory=dict, description="per ticker re-asked")
    findings: list[ScriptFinding] = Field(
        default_factory=list, description="too few turns / stance / unknown names left after the re-ask"
    )


class BriefingResult(BaseModel):
    script: BriefingScript
    sections: list[TickerSection]
    debates: dict[str, dict[str, Any]] = Field(description="each ticker's debate JSON, in ticker order")
    audit: BriefingAudit

    def turns_per_ticker(self) -> dict[str, int]:
        return {s.ticker: s.end_id - s.start_id + 1 for s in self.sections}

    def rejected_edits(self) -> list[EditDecision]:
        return [e for e in self.audit.edits if e.status == "rejected"]
