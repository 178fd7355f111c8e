"""JudgeInput (judge spec, Decision 3): the debate's conclusions only, no Debate types imported."""

from __future__ import annotations

from pydantic import BaseModel, Field

from stockdesk.judge.domain.model.enums import DebateDirection


class JudgeInput(BaseModel):
    symbol: str = Field(min_length=1)
    direction: DebateDirection
    confidence: float = Field(ge=0.0, le=1.0)
    bull_thesis: str = ""
    bear_thesis: str = ""
    risk_factors: list[str] = Field(default_factory=list)
    key_disagreements: list[str] = Field(default_factory=list)
    conflict_resolution: str = ""
