"""The one contract every research expert's agent keeps: a snapshot (and, on a re-ask, the
feedback on the first answer) in, one parsed answer out.

The five experts differ in their snapshot and answer types, not in how they are asked, so there
is one generic port; each expert names its own pair (`ITechnicalAnalystAgentPort = ...`) in its
port module.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Generic, TypeVar

from pydantic import BaseModel

from stockdesk.research.domain.dtos.expert import AgentAnswer

S = TypeVar("S", bound=BaseModel)
A = TypeVar("A", bound=BaseModel)


class IExpertAgentPort(ABC, Generic[S, A]):
    @abstractmethod
    def analyze(self, snapshot: S, feedback: str | None = None) -> AgentAnswer[A]:
        """One LLM round over `snapshot`; `feedback` ends the prompt of a re-ask."""
