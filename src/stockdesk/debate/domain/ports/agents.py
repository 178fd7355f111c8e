"""The bull-bear agent ports (the two advocates share one): one LLM round each, answered with the
prompt, raw text and parse.

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


C = TypeVar("C", bound=BaseModel)


class IAdvocateAgentPort(ABC, Generic[C]):
    """Both advocates: the bull argues for the stock, the bear against it, with the same call."""

    @abstractmethod
    def argue(
        self, symbol: str, digests: Sequence[ExpertView], feedback: str | None = None
    ) -> AgentAnswer[C]:
        """The strongest case for (bull) or against (bear) the stock, from the digests only."""


IBullAdvocateAgentPort = IAdvocateAgentPort[BullArgument]
IBearAdvocateAgentPort = IAdvocateAgentPort[BearArgument]


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
