"""IJudgeVerdictAgentPort: one agent, one LLM call per verdict (plus one re-ask): a single call
keeps the verdict cheap and its reasoning in one place (judge-design.md, Decision 1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from stockdesk.judge.domain.dtos.judge_input import JudgeInput
from stockdesk.judge.domain.dtos.verdict_result import VerdictResult
from stockdesk.llm_platform.application.agent import Agent


class VerdictAnswer(BaseModel):
    """The prompt sent, the raw text back, the parsed verdict."""

    input: str
    output: str
    result: VerdictResult
    choice: dict[str, Any] | None = Field(
        default=None, description="choices mode: the picks as answered (result's texts written from them)"
    )


@dataclass(frozen=True)
class VerdictQuestion:
    """The judge's input; `sample` > 0 asks with another seed (the stability runs)."""

    judge_input: JudgeInput
    sample: int = 0


# The desk's one agent contract; `feedback`: why the last answer was refused.
IJudgeVerdictAgentPort = Agent[VerdictQuestion, VerdictAnswer]
