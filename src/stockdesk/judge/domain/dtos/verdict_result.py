"""VerdictResult: what the verdict agent must return (validated strictly; bad values are errors)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from stockdesk.judge.domain.model.enums import ActionDirection

Line = Annotated[str, Field(max_length=160)]


class VerdictResult(BaseModel):
    action: ActionDirection
    position_percent: float = Field(ge=0.0, le=1.0, description="share of the portfolio, 0.0-1.0")
    confidence: float = Field(ge=0.0, le=1.0)
    entry_strategy: str = Field(min_length=1, max_length=200)
    stop_loss: str = Field(max_length=160)
    take_profit: str = Field(max_length=160)
    time_horizon: str = Field(min_length=1, max_length=60)
    risk_warnings: list[Line] = Field(default_factory=list, max_length=5)
    reasoning: str = Field(min_length=1, max_length=400)
