"""IPanelExpertAgentPort: role prompt + thin lists -> agent -> tools -> agent ... -> strict JSON.

The expert subgraph of spec 3: the prompt carries only the thin lists of spec 4; the expert may
call the five tools (bound to the debate date) up to `limits.max_calls` times in its turn, then
answers with one JSON object. With `max_calls` 0 it answers from the lists alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

from stockdesk.debate.application.panel_tools import PanelTools
from stockdesk.debate.application.sources import render_sources
from stockdesk.debate.domain.dtos.panel import PANEL_ROLES, ExpertReply, PanelRole
from stockdesk.debate.domain.ports.panel import (
    ExpertAnswer,
    IPanelExpertAgentPort,
    PanelTurn,
    ToolUse,
)
from stockdesk.debate.infrastructure.agents.panel_expert.output_parser import parse_expert_reply
from stockdesk.debate.infrastructure.agents.panel_text import (
    NONE,
    example_call,
    render_context,
    render_digests,
    render_rounds,
)
from stockdesk.debate.infrastructure.tools.panel_tool_defs import panel_tools
from stockdesk.llm_platform.application.llm_handle import FEEDBACK_HEADER, LLMHandle
from stockdesk.llm_platform.application.tool_loop import ToolLimits
from stockdesk.shared.prompts import load_prompts


@dataclass(frozen=True)
class RoleText:
    title: str
    focus: str


def load_roles() -> dict[PanelRole, RoleText]:
    """`prompts/roles/{role}.md`: the title on the first line, the focus below it."""
    base = resources.files(__package__ or "").joinpath("prompts", "roles")
    roles = {}
    for role in PANEL_ROLES:
        title, _, focus = base.joinpath(f"{role}.md").read_text(encoding="utf-8").strip().partition("\n")
        roles[role] = RoleText(title=title.strip(), focus=" ".join(focus.split()))
    return roles


class PanelExpertAgent(IPanelExpertAgentPort):
    def __init__(self, llm: LLMHandle, tools: PanelTools | None = None, limits: ToolLimits | None = None):
        """Without `tools` (or with `limits.max_calls` 0) the expert gets no tools."""
        self._llm = llm
        self._limits = limits or ToolLimits()
        self._tools = tools if self._limits.max_calls > 0 else None
        self._prompts = load_prompts(__package__ or "")
        folder = "prompts/tools" if self._tools else "prompts/no_tools"
        self._tool_text = load_prompts(__package__ or "", folder)
        # the answer format: in the system prompt without tools; after the tool results with them
        self._answer = load_prompts(__package__ or "", "prompts/answer")
        self._roles = load_roles()

    def system_prompt(self, role: PanelRole, as_of: str = "") -> str:
        text = self._roles[role]
        rules = self._tool_text.system.format(max_calls=self._limits.max_calls, as_of=as_of)
        answer = "" if self._tools else "\n" + self._answer.system
        return self._prompts.system.format(
            role=role, role_title=text.title, role_focus=text.focus, tool_rules=rules, answer_rule=answer
        )

    def answer(self, question: PanelTurn, feedback: str | None = None) -> ExpertAnswer:
        """One turn; `feedback` (the claim checks' findings on its first answer, for the one
        repair call) ends the prompt, under the same header as the bull/bear repairs."""
        role, round_no, context = question.role, question.round_no, question.context
        digests, previous = question.digests, question.previous
        prompt = self._prompts.render_user(
            ticker=context.ticker,
            as_of=context.as_of.isoformat(),
            round_no=round_no,
            role_title=self._roles[role].title,
            digests=render_digests(digests),
            context=render_context(context, role),
            sources=render_sources(context.allowed_for(role)),
            previous=render_rounds(previous) if previous else f"{NONE}（这是第一轮）",
            tool_hint=self._tool_text.render_user(
                max_calls=self._limits.max_calls,
                example=example_call(role, context),
                role_title=self._roles[role].title,
            ),
        )
        if feedback:
            prompt += f"{FEEDBACK_HEADER}{feedback}"
        tools = panel_tools(self._tools, context.as_of) if self._tools else []
        turn = self._llm.with_tools(
            prompt,
            self.system_prompt(role, context.as_of.isoformat()),
            tools,
            response_model=ExpertReply,
            caller=f"debate.panel.{role}",
            limits=self._limits,
            answer_hint=self._answer.render_user() if tools else None,
        )
        final = turn.final
        parsed = (
            final.parsed if isinstance(final.parsed, ExpertReply) else parse_expert_reply(final.text, role)
        )
        return ExpertAnswer(
            input=prompt,
            output=final.text,
            parsed=parsed,
            tokens=turn.tokens,
            tools=[ToolUse(**c.model_dump(exclude={"id", "seconds"}), result=c.result) for c in turn.calls],
        )
