"""JudgeInput (judge-design.md, Decision 3): the debate's conclusions, no Debate types imported,
plus the evidence the coordinator hands over and the code-given plan options."""

from __future__ import annotations

from pydantic import BaseModel, Field

from stockdesk.judge.domain.dtos.evidence import JudgeEvidence
from stockdesk.judge.domain.dtos.holding import Holding
from stockdesk.judge.domain.dtos.trade_plan import PlanOption
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
    evidence: JudgeEvidence = Field(default_factory=JudgeEvidence)
    plans: dict[str, list[PlanOption]] = Field(
        default_factory=dict, description="per action (BUY/SELL/HOLD), the plans the judge may choose"
    )
    caps: dict[str, float] = Field(default_factory=dict, description="per action, the confidence cap")
    holding: Holding | None = Field(
        default=None, description="the user's position in the symbol on the date (None: not held)"
    )
