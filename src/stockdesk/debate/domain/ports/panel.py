"""Ports of the panel debate: one expert agent and the moderator agent, named as the desk's one
agent contract (`Agent[question, answer]`), and what their answers carry.

The five data tools (spec 5) are a plain class over the store, `debate.application.panel_tools`,
which says how their arguments and answers follow the spec.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from stockdesk.debate.domain.dtos.panel import (
    ExpertReply,
    ModeratorDecision,
    PanelContext,
    PanelRole,
    PanelRound,
)
from stockdesk.llm_platform.application.agent import Agent, AgentAnswer
from stockdesk.research.application import ExpertView


class ToolUse(BaseModel):
    """One tool call an expert made in its turn; `result` (the tool's JSON) is kept out of dumps."""

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    status: str = Field(description="ok, cached (a repeat in the turn), error, refused (over the limit)")
    result_chars: int = 0
    error: str | None = None
    result: Any = Field(default=None, exclude=True)


class ExpertAnswer(BaseModel):
    """The prompt sent, the raw text back, the parsed reply (sources not yet re-validated).

    `tools` are the calls the expert made on the way; a source may be cited from their results.
    """

    input: str
    output: str
    parsed: ExpertReply
    tokens: int = 0
    tools: list[ToolUse] = Field(default_factory=list)


ModeratorAnswer = AgentAnswer[ModeratorDecision]


@dataclass(frozen=True)
class PanelTurn:
    """One expert's turn: its role and round, the debate's context and digests, and the earlier
    rounds' (validated) turns. A re-ask's `feedback` (the claim checks' findings on its first
    answer, the one repair call) ends the prompt."""

    role: PanelRole
    round_no: int
    context: PanelContext
    digests: list[ExpertView]
    previous: list[PanelRound]


@dataclass(frozen=True)
class ModeratorQuestion:
    """The transcript so far; `must_end`: the debate stops whatever the moderator says (consensus,
    computed in code, or the last round)."""

    context: PanelContext
    rounds: list[PanelRound]
    max_rounds: int
    consensus: bool
    must_end: bool


IPanelExpertAgentPort = Agent[PanelTurn, ExpertAnswer]
IModeratorAgentPort = Agent[ModeratorQuestion, ModeratorAnswer]  # asked once: no feedback
