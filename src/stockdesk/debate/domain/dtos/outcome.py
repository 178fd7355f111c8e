"""DebateOutcome: the one contract both debate modes produce and the Judge consumes."""

from __future__ import annotations

from pydantic import BaseModel, Field

from stockdesk.debate.domain.model.enums import DebateDirection


class BullCase(BaseModel):
    core_thesis: str = ""
    supporting_arguments: list[str] = Field(default_factory=list)
    acknowledged_risks: list[str] = Field(default_factory=list)


class BearCase(BaseModel):
    core_thesis: str = ""
    supporting_arguments: list[str] = Field(default_factory=list)
    acknowledged_strengths: list[str] = Field(default_factory=list)


class RiskItem(BaseModel):
    risk: str
    probability: str = Field(description="High / Medium / Low")
    impact: str = Field(description="High / Medium / Low")
    mitigation: str = ""


class DebateOutcome(BaseModel):
    symbol: str
    direction: DebateDirection
    confidence: float = Field(ge=0.0, le=1.0)
    bull_case: BullCase = Field(default_factory=BullCase)
    bear_case: BearCase = Field(default_factory=BearCase)
    risk_matrix: list[RiskItem] = Field(default_factory=list)
    key_disagreements: list[str] = Field(default_factory=list)
    conflict_resolution: str = ""
