"""The one agent mechanism every expert uses: prompt resources + snapshot -> LLM -> parsed answer.

Every expert call starts with the same text: the system message is the shared
`agents/prompts/system.md` (rules common to all experts), and the expert's own instructions
(`<expert>/prompts/system.md`: role, its rules, its fields) open the user message, before the data
(`<expert>/prompts/user.md`). A model server with a prompt cache (llama.cpp's) then evaluates that
prefix once and reuses it for the next expert, instead of evaluating five different system prompts.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import TypeVar

from pydantic import BaseModel

from stockdesk.llm_platform.application.llm_handle import LLMHandle, Sampling
from stockdesk.llm_platform.application.structured_output import parse_or_log
from stockdesk.research.domain.dtos.expert import AgentAnswer
from stockdesk.research.domain.ports.expert_agent import IExpertAgentPort
from stockdesk.shared.prompts import load_prompts

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


class StructuredAgent(IExpertAgentPort[S, T]):
    """Every expert's agent: fills `<package>/prompts/user.md` from a snapshot with str.format() and
    asks for `output_model`; an expert's agent is this class with its package, model and name.

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
        self._llm = llm
        self._parse = parse or (lambda raw: parse_expert_output(raw, output_model, expert))
        self._max_tokens = max_tokens
        self._prompts = load_prompts(package)
        self._model = output_model
        self._expert = expert

    @property
    def system_prompt(self) -> str:
        """The system message sent: the text every expert shares."""
        return shared_system_prompt()

    @property
    def instructions(self) -> str:
        """This expert's own instructions (its prompts/system.md), at the head of the user message."""
        return self._prompts.system

    def user_prompt(self, snapshot: BaseModel) -> str:
        """The user message: the expert's instructions, then its template filled from the snapshot."""
        return f"{self._prompts.system}\n\n{self._prompts.render_user(**snapshot.model_dump(mode='json'))}"

    def analyze(self, snapshot: S, feedback: str | None = None) -> AgentAnswer[T]:
        asked = self._llm.ask(
            self.user_prompt(snapshot),
            self.system_prompt,
            response_model=self._model,
            caller=f"research.{self._expert}",
            feedback=feedback,
            parse=self._parse,
            max_tokens=self._max_tokens,
        )
        return AgentAnswer[T](input=asked.prompt, output=asked.text, parsed=asked.parsed, tokens=asked.tokens)
