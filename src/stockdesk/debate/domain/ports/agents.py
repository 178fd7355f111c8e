"""The three bull-bear agent ports: one LLM round each, answered with the prompt, raw text and parse.

`feedback` is set on the one repair round after the claim checks: what the first answer got
wrong, to be added to the prompt.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Generic, TypeVar

from pydantic import BaseModel

from stockdesk.debate.domain.dtos.bull_bear import BearArgument, BullArgument, ResolutionResult
from stockdesk.debate.domain.dtos.choices import ChoiceRole
from stockdesk.research.application import ExpertView

T = TypeVar("T", bound=BaseModel)


class AgentAnswer(BaseModel, Generic[T]):
    """What one agent call leaves behind for the audit: who, what was sent, what came back."""

    agent: str
    input: str
    output: str
    parsed: T
    tokens: int = 0


class IBullAdvocateAgentPort(ABC):
    @abstractmethod
    def argue(
        self, symbol: str, digests: Sequence[ExpertView], feedback: str | None = None
    ) -> AgentAnswer[BullArgument]:
        """The strongest case for the stock, from the digests only."""


class IBearAdvocateAgentPort(ABC):
    @abstractmethod
    def argue(
        self, symbol: str, digests: Sequence[ExpertView], feedback: str | None = None
    ) -> AgentAnswer[BearArgument]:
        """The strongest case against the stock, from the digests only."""


class IResolutionAgentPort(ABC):
    @abstractmethod
    def resolve(
        self,
        symbol: str,
        digests: Sequence[ExpertView],
        bull: BullArgument,
        bear: BearArgument,
        feedback: str | None = None,
    ) -> AgentAnswer[ResolutionResult]:
        """Weigh both cases against the digests: direction, confidence, risks, disagreements."""


class IChoiceAgentPort(ABC):
    """Choices mode: one LLM round in which the agent only picks card ids (domain/dtos/choices.py)."""

    @abstractmethod
    def choose(
        self,
        role: ChoiceRole,
        symbol: str,
        views: Sequence[ExpertView],
        feedback: str | None = None,
        cases: str = "",
    ) -> AgentAnswer[BaseModel]:
        """`cases`: the advocates' rendered cases (the resolution reads them); `feedback`: why the
        last picks were refused. The parsed answer is the role's `choice_model` (dtos/choices.py)."""
