"""What the bull-bear agents must return, validated strictly: a bad value is an error, never a default.

Bounds keep the small local model's grammar-constrained answers short; the advocates' fields are
the same as BullCase / BearCase so that the outcome is a plain copy of them.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, field_validator

from stockdesk.debate.domain.dtos.outcome import RiskItem
from stockdesk.debate.domain.model.enums import DebateDirection

Line = Annotated[str, Field(min_length=1, max_length=60)]
Level = Literal["High", "Medium", "Low"]
LEVEL_WORDS = {"high", "medium", "low", "高", "中", "低"}


class BullArgument(BaseModel):
    core_thesis: str = Field(min_length=1, max_length=80)
    supporting_arguments: list[Line] = Field(min_length=1, max_length=3)
    acknowledged_risks: list[Line] = Field(default_factory=list, max_length=2)


class BearArgument(BaseModel):
    core_thesis: str = Field(min_length=1, max_length=80)
    supporting_arguments: list[Line] = Field(min_length=1, max_length=3)
    acknowledged_strengths: list[Line] = Field(default_factory=list, max_length=2)


class RiskAssessment(RiskItem):
    """A RiskItem whose probability and impact must be one of High / Medium / Low."""

    risk: str = Field(min_length=1, max_length=60)
    probability: Level
    impact: Level
    mitigation: str = Field(default="", max_length=60)

    @field_validator("risk")
    @classmethod
    def _describes_a_risk(cls, value: str) -> str:
        """A small model sometimes puts the level in this field; that names no risk."""
        if value.strip().lower() in LEVEL_WORDS:
            raise ValueError("must describe the risk in words, not give a level")
        return value


class ResolutionResult(BaseModel):
    direction: DebateDirection
    confidence: float = Field(ge=0.0, le=1.0)
    risk_matrix: list[RiskAssessment] = Field(min_length=1, max_length=2)
    key_disagreements: list[Line] = Field(min_length=1, max_length=2)
    conflict_resolution: str = Field(min_length=1, max_length=100)
