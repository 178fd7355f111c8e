"""IJudgeVerdictAgentPort: one agent, one LLM call per verdict (plus one re-ask): a single call
keeps the verdict cheap and its reasoning in one place (judge-design.md, Decision 1)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from pydantic import BaseModel, Field

from stockdesk.judge.domain.dtos.judge_input import JudgeInput
from stockdesk.judge.domain.dtos.verdict_result import VerdictResult


class VerdictAnswer(BaseModel):
    """The prompt sent, the raw text back, the parsed verdict."""

    input: str
    output: str
    result: VerdictResult
    choice: dict[str, Any] | None = Field(
        default=None, description="choices mode: the picks as answered (result's texts written from them)"
    )


class IJudgeVerdictAgentPort(ABC):
    @abstractmethod
    def decide(
        self, judge_input: JudgeInput, *, feedback: str | None = None, sample: int = 0
    ) -> VerdictAnswer:
        """`feedback`: why the last answer was refused; `sample` > 0: another seed (stability runs)."""
