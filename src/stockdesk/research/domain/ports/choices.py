"""IExpertChoicePort: one expert's cards listed -> one LLM call answering a verdict word and ids."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from stockdesk.llm_platform.application.agent import Agent
from stockdesk.research.domain.dtos.evidence_card import EvidenceCard
from stockdesk.research.domain.dtos.expert import AgentAnswer


@dataclass(frozen=True)
class ChoiceQuestion:
    """What an expert's chooser is shown: its snapshot (for the name and date), its cards, and
    `allowed`: each verdict word -> the card ids that may support it. The parsed answer is an
    `expert_choice_model(allowed, card ids)` instance."""

    expert: str
    snapshot: BaseModel
    cards: list[EvidenceCard]
    allowed: dict[str, list[str]]


IExpertChoicePort = Agent[ChoiceQuestion, AgentAnswer[BaseModel]]
