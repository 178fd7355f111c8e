"""VerdictResult: what the verdict agent must return (validated strictly; bad values are errors).

The model chooses and explains; it writes no level, size or date: those come from the trade plan
computed in code, of which it picks one of the code-given variants.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from stockdesk.judge.domain.model.enums import ActionDirection

Line = Annotated[str, Field(min_length=1, max_length=60)]
TimeHorizon = Literal["1-4周", "1-3个月", "3-6个月"]


class VerdictResult(BaseModel):
    action: ActionDirection
    plan: Literal["standard", "conservative"] = Field(
        default="standard", description="which code-given plan: standard or conservative (smaller, closer)"
    )
    confidence: float = Field(ge=0.0, le=1.0)
    time_horizon: TimeHorizon
    risk_warnings: list[Line] = Field(default_factory=list, max_length=3)
    reasoning: str = Field(min_length=1, max_length=200)
