"""VerdictDTO (Decision 4) plus what the rules layer changed and the audit trail of the call."""

from __future__ import annotations

from pydantic import BaseModel, Field


class VerdictDTO(BaseModel):
    symbol: str
    action: str = Field(description="BUY | SELL | HOLD")
    position_percent: float = Field(ge=0.0, le=1.0)
    confidence: float = Field(ge=0.0, le=1.0)
    entry_strategy: str
    stop_loss: str
    take_profit: str
    time_horizon: str
    risk_warnings: list[str]
    reasoning: str
    rules_applied: list[str] = Field(
        default_factory=list, description="rules that changed the model's answer, e.g. hold_means_no_position"
    )
    input: str = Field(default="", description="the prompt sent to the model")
    output: str = Field(default="", description="the model's raw answer")
