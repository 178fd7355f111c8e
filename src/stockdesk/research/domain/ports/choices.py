"""IExpertChoicePort: one expert's cards listed -> one LLM call answering a verdict word and ids."""

from __future__ import annotations

from abc import ABC, abstractmethod

from pydantic import BaseModel

from stockdesk.research.domain.dtos.evidence_card import EvidenceCard
from stockdesk.research.domain.dtos.expert import AgentAnswer


class IExpertChoicePort(ABC):
    @abstractmethod
    def choose(
        self,
        expert: str,
        snapshot: BaseModel,
        cards: list[EvidenceCard],
        allowed: dict[str, list[str]],
        feedback: str | None = None,
    ) -> AgentAnswer[BaseModel]:
        """`allowed`: each verdict word -> the card ids that may support it; the parsed answer is an
        `expert_choice_model(allowed, card ids)` instance."""
