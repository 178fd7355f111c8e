"""What every research expert shares: the agent's answer, guard reports, the symmetric result."""

from __future__ import annotations

from pydantic import BaseModel, Field

# One LLM round: the desk's one answer type, re-exported where research's DTOs have always had it.
from stockdesk.llm_platform.application.agent import AgentAnswer as AgentAnswer
from stockdesk.shared.claims import Grounding, Violation

# Numbers quoted in the expert's text, checked against the snapshot it was given: the shared
# kernel's grounding result, under the name research's DTOs have always used.
GroundingReport = Grounding


class GuardReport(BaseModel):
    """What the guards found. After one repair round, what still violated was dropped (`dropped`)."""

    grounding: GroundingReport = Field(default_factory=GroundingReport)
    trade_instructions: list[str] = Field(default_factory=list, description="phrases that were detected")
    retried: bool = False
    flagged: bool = Field(default=False, description="a guard still failed after the one retry")
    unverified_sources: list[str] = Field(
        default_factory=list, description="cited URLs that were not in the context: dropped"
    )
    no_information: bool = Field(
        default=False, description="the search found nothing: the answer was held to 数据不足"
    )
    first_violations: list[Violation] = Field(
        default_factory=list,
        description="what the first answer got wrong: the repair round was asked for these",
    )
    violations: list[Violation] = Field(
        default_factory=list, description="what the answer returned still got wrong (before dropping)"
    )
    dropped: list[str] = Field(
        default_factory=list,
        description="'<field>: <text>' removed from the answer because it still violated",
    )
