"""IPanelExpertAgentPort: role prompt + pre-loaded context -> one LLM call -> strict parse.

Pre-loaded mode (spec 4): the context load_context built is written into the prompt, for every
provider, because our LLMService has no function calling.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

from stockdesk.debate.domain.dtos.expert_digest import ExpertDigest
from stockdesk.debate.domain.dtos.panel import PANEL_ROLES, ExpertReply, PanelContext, PanelRole, PanelRound
from stockdesk.debate.domain.ports.llm_port import ILLMPort
from stockdesk.debate.domain.ports.panel import ExpertAnswer, IPanelExpertAgentPort
from stockdesk.debate.infrastructure.agents.panel_expert.output_parser import parse_expert_reply
from stockdesk.debate.infrastructure.agents.panel_text import (
    NONE,
    render_context,
    render_digests,
    render_rounds,
    render_sources,
)
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
    def __init__(self, llm: ILLMPort):
        self._llm = llm
        self._prompts = load_prompts(__package__ or "")
        self._roles = load_roles()

    def system_prompt(self, role: PanelRole) -> str:
        text = self._roles[role]
        return self._prompts.system.format(role=role, role_title=text.title, role_focus=text.focus)

    def speak(
        self,
        role: PanelRole,
        round_no: int,
        context: PanelContext,
        digests: list[ExpertDigest],
        previous: list[PanelRound],
    ) -> ExpertAnswer:
        prompt = self._prompts.render_user(
            ticker=context.ticker,
            as_of=context.as_of.isoformat(),
            round_no=round_no,
            role_title=self._roles[role].title,
            digests=render_digests(digests),
            context=render_context(context, role),
            sources=render_sources(context.allowed_for(role)),
            previous=render_rounds(previous) if previous else f"{NONE}（这是第一轮）",
        )
        reply = self._llm.generate(
            prompt, self.system_prompt(role), response_model=ExpertReply, caller=f"debate.panel.{role}"
        )
        parsed = parse_expert_reply(reply.text, role)
        return ExpertAnswer(input=prompt, output=reply.text, parsed=parsed, tokens=reply.tokens)
