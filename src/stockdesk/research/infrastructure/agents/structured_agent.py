"""The one agent mechanism every expert uses: prompt resources + snapshot -> LLM -> parsed answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from pydantic import BaseModel

from stockdesk.llm_platform.application.structured_output import parse_or_log
from stockdesk.research.domain.dtos.expert import AgentAnswer
from stockdesk.research.domain.ports.llm import ILLMPort
from stockdesk.shared.prompts import load_prompts

T = TypeVar("T", bound=BaseModel)
FEEDBACK_HEADER = "\n\n## 上一次回答未通过校验，请修正\n"


def parse_expert_output(raw: str, model: type[T], expert: str) -> T:
    """Strip <think>, extract JSON, validate; log the raw output (truncated) and raise on failure."""
    return parse_or_log(raw, model, expert)


class StructuredAgent(Generic[T]):
    """Fills `<package>/prompts/user.md` from a snapshot with str.format() and asks for `output_model`."""

    def __init__(
        self,
        llm: ILLMPort,
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
        return self._prompts.system

    def ask(self, snapshot: BaseModel, feedback: str | None = None) -> AgentAnswer[T]:
        prompt = self._prompts.render_user(**snapshot.model_dump(mode="json"))
        if feedback:
            prompt += f"{FEEDBACK_HEADER}{feedback}"
        reply = self._llm.generate(
            prompt,
            self._prompts.system,
            response_model=self._model,
            caller=f"research.{self._expert}",
            max_tokens=self._max_tokens,
        )
        parsed = self._parse(reply.text)
        return AgentAnswer[T](input=prompt, output=reply.text, parsed=parsed, tokens=reply.tokens)
