"""What the judge weighs besides the debate: the experts' stances, their code-only signals, prices.

Judge imports no research or coordinator type: the coordinator hands these over as plain values.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from stockdesk.judge.domain.dtos.trade_plan import PlanInputs


class CodeSignalInput(BaseModel):
    expert: str
    stance: str = Field(description="bullish | neutral | bearish")
    score: float = Field(ge=-1.0, le=1.0)
    confidence: float = Field(ge=0.0, le=1.0)
    reasons: list[str] = Field(default_factory=list)


class JudgeEvidence(BaseModel):
    stances: dict[str, str] = Field(
        default_factory=dict, description="each succeeded expert's stance: bullish | neutral | bearish"
    )
    code_signals: dict[str, CodeSignalInput] = Field(default_factory=dict)
    prices: PlanInputs | None = Field(default=None, description="None: no price history, no plan")
    facts: dict = Field(
        default_factory=dict, description="the numbers the judge's text may quote (claim checks)"
    )
