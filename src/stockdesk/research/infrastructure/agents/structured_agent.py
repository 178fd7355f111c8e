"""The agent every research expert is: its prompt resources + a snapshot -> the LLM -> its answer.

Every expert call starts with the same text: the system message is the shared
`agents/prompts/system.md` (rules common to all experts), and the expert's own instructions
(`<expert>/prompts/system.md`: role, its rules, its fields) open the user message, before the data
(`<expert>/prompts/user.md`). A model server with a prompt cache (llama.cpp's) then evaluates that
prefix once and reuses it for the next expert, instead of evaluating five different system prompts.
The filling and asking is the desk's one `PromptAgent`; this class only lays the snapshot into it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Generic, TypeVar

from pydantic import BaseModel

from stockdesk.llm_platform.application.agent import Agent, AgentAnswer, PromptAgent
from stockdesk.llm_platform.application.llm_handle import LLMHandle, Sampling
from stockdesk.llm_platform.application.structured_output import parse_or_log

S = TypeVar("S", bound=BaseModel)
T = TypeVar("T", bound=BaseModel)
SAMPLING = Sampling(temperature=0.2, max_tokens=900)  # the experts' sampling (a longer answer asks more)


@cache
def shared_system_prompt() -> str:
    """The system message of every research expert (read once: it is the same for all of them)."""
    return resources.files(__package__).joinpath("prompts", "system.md").read_text(encoding="utf-8").strip()


def parse_expert_output(raw: str, model: type[T], expert: str) -> T:
    """Strip <think>, extract JSON, validate; log the raw output (truncated) and raise on failure."""
    return parse_or_log(raw, model, expert)


class ExpertAgent(Agent[S, AgentAnswer[T]], Generic[S, T]):
    """Every expert's agent: fills `<package>/prompts/user.md` from a snapshot's fields and asks
    for `output_model`; an expert's agent is this class with its package, model and name.

    The expert's instructions are not formatted (they hold JSON examples with braces): they are
    put in front of the filled template as they are.
    """

    def __init__(
        self,
        llm: LLMHandle,
        *,
        package: str,
        output_model: type[T],
        expert: str,
        max_tokens: int | None = None,
        parse: Callable[[str], T] | None = None,
    ):
        """`parse` is the agent's own parser when it has one (the valuation spec asks for that)."""
        self._prompt = PromptAgent(
            llm,
            package=package,
            agent="",
            caller=f"research.{expert}",
            output_model=output_model,
            parse=parse or (lambda raw: parse_expert_output(raw, output_model, expert)),
            system=shared_system_prompt(),
            max_tokens=max_tokens,
        )

    @property
    def system_prompt(self) -> str:
        """The system message sent: the text every expert shares."""
        return self._prompt.system_prompt

    @property
    def instructions(self) -> str:
        """This expert's own instructions (its prompts/system.md), at the head of the user message."""
        return self._prompt.instructions

    @property
    def output_model(self) -> type[T]:
        """The model this expert's answer is validated against."""
        return self._prompt.output_model

    @property
    def template(self) -> str:
        """This expert's user template, unfilled: its placeholders are the snapshot's fields."""
        return self._prompt.template

    def user_prompt(self, snapshot: BaseModel) -> str:
        """The user message: the expert's instructions, then its template filled from the snapshot."""
        return self._prompt.user_prompt(**snapshot.model_dump(mode="json"))

    def answer(self, question: S, feedback: str | None = None) -> AgentAnswer[T]:
        return self._prompt.ask(feedback, **question.model_dump(mode="json"))
