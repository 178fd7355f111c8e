"""IChoiceAgentPort: the views' cards listed -> one LLM call whose answer is a few card ids.

One system prompt for the three roles (so llama.cpp can keep its prefix cached); each role's
template (`prompts/<role>.md`) lists the cards with their code-given directions. The parsed model
LLMService validated against the role's schema is used as is: no second parse.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources

from pydantic import BaseModel

from stockdesk.debate.domain.dtos.choices import choice_model
from stockdesk.debate.domain.ports.agents import AgentAnswer, ChoiceQuestion, IChoiceAgentPort
from stockdesk.debate.infrastructure.agents.digest_text import render_card
from stockdesk.llm_platform.application.agent import answered
from stockdesk.llm_platform.application.llm_handle import PICKS_FEEDBACK_HEADER, LLMHandle
from stockdesk.research.application import ExpertView
from stockdesk.shared.prompts import PromptTemplates

NONE = "（无）"


def _template(name: str) -> str:
    return resources.files(__package__).joinpath("prompts", name).read_text(encoding="utf-8").strip()


def card_lines(views: Sequence[ExpertView]) -> str:
    return "\n".join(f"- {render_card(card)}" for view in views for card in view.cards) or NONE


class ChoiceAgent(IChoiceAgentPort):
    def __init__(self, llm: LLMHandle):
        self._llm = llm
        system = _template("system.md")
        self._prompts = {
            role: PromptTemplates(system=system, user=_template(f"{role}.md"))
            for role in ("bull", "bear", "resolution")
        }

    def answer(self, question: ChoiceQuestion, feedback: str | None = None) -> AgentAnswer[BaseModel]:
        role, symbol, views, cases = question.role, question.symbol, question.views, question.cases
        prompts = self._prompts[role]
        values = {"symbol": symbol, "cards": card_lines(views)}
        prompt = prompts.render_user(**values, **({"cases": cases} if role == "resolution" else {}))
        cards = [(card.id, int(card.direction)) for view in views for card in view.cards]
        asked = self._llm.ask(
            prompt,
            prompts.system,
            response_model=choice_model(role, cards),
            caller=f"debate.choices.{role}",
            feedback=feedback,
            header=PICKS_FEEDBACK_HEADER,
        )
        return answered(asked, f"{role}_choices")
