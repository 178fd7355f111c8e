"""IJudgeVerdictAgentPort (Decision 1): one agent, one LLM call per verdict."""

from __future__ import annotations

from abc import ABC, abstractmethod

from pydantic import BaseModel

from stockdesk.judge.domain.dtos.judge_input import JudgeInput
from stockdesk.judge.domain.dtos.verdict_result import VerdictResult


class VerdictAnswer(BaseModel):
    """The prompt sent, the raw text back, the parsed verdict."""

    input: str
    output: str
    result: VerdictResult


class IJudgeVerdictAgentPort(ABC):
    @abstractmethod
    def decide(self, judge_input: JudgeInput) -> VerdictAnswer: ...
