"""IExpertChoicePort: an expert's evidence cards listed -> one call answering a word and card ids.

One system prompt for every expert (llama.cpp keeps its evaluated prefix across the calls); the
user message is the expert's role (`prompts/roles/<expert>.md`) and its cards with their code-given
directions. The parsed model LLMService validated against the answer schema is used as is.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from pydantic import BaseModel

from stockdesk.llm_platform.application.agent import answered
from stockdesk.llm_platform.application.llm_handle import PICKS_FEEDBACK_HEADER, LLMHandle
from stockdesk.research.domain.dtos.evidence_card import EvidenceCard
from stockdesk.research.domain.dtos.expert import AgentAnswer
from stockdesk.research.domain.dtos.expert_choice import expert_choice_model
from stockdesk.research.domain.ports.choices import ChoiceQuestion, IExpertChoicePort
from stockdesk.shared.claims import card_line
from stockdesk.shared.prompts import load_prompts

NONE = "（无：该专家的数据没有可用的证据卡）"
NOTE_FIELD = ', "note": "一般留空；要写时不超过 40 个字"'


def _note_rule() -> str:
    """The note's rule (prompts/note.md), added to the system prompt when notes are offered."""
    return resources.files(__package__).joinpath("prompts", "note.md").read_text(encoding="utf-8").strip()


@cache
def role(expert: str) -> str:
    path = resources.files(__package__).joinpath("prompts", "roles", f"{expert}.md")
    return path.read_text(encoding="utf-8").strip()


def card_lines(cards: list[EvidenceCard]) -> str:
    return "\n".join(f"- {card_line(c.id, c.text_zh, c.direction)}" for c in cards) or NONE


class ExpertChoiceAgent(IExpertChoicePort):
    def __init__(self, llm: LLMHandle, *, notes: bool = False):
        """`notes`: the schema and the prompt offer the one short note (else the answer has none,
        and the model spends no tokens on it)."""
        self._llm = llm
        self._notes = notes
        self._prompts = load_prompts(__package__)
        self._system = f"{self._prompts.system}\n{_note_rule()}" if notes else self._prompts.system

    @property
    def system_prompt(self) -> str:
        return self._system

    def user_prompt(
        self, expert: str, snapshot: BaseModel, cards: list[EvidenceCard], words: list[str]
    ) -> str:
        return self._prompts.render_user(
            role=role(expert),
            stock_name=getattr(snapshot, "stock_name", ""),
            symbol=getattr(snapshot, "symbol", ""),
            as_of=getattr(snapshot, "as_of", ""),
            cards=card_lines(cards),
            words=" | ".join(f'"{w}"' for w in words),
            note_field=NOTE_FIELD if self._notes else "",
        )

    def answer(self, question: ChoiceQuestion, feedback: str | None = None) -> AgentAnswer[BaseModel]:
        expert, snapshot, cards, allowed = (
            question.expert,
            question.snapshot,
            question.cards,
            question.allowed,
        )
        asked = self._llm.ask(
            self.user_prompt(expert, snapshot, cards, list(allowed)),
            self.system_prompt,
            response_model=expert_choice_model(allowed, [c.id for c in cards], notes=self._notes),
            caller=f"research.{expert}.choices",
            feedback=feedback,
            header=PICKS_FEEDBACK_HEADER,
        )
        return answered(asked)
