"""The one LLM handle every context calls: a structured call (or a turn with tools) over LLMService
with the context's own sampling.

Contexts differ only in their sampling (how long an answer may be, how much it may wander), so
there is one handle class and each context builds it with its `Sampling`; what comes back is one
`LLMReply`. The handle is concrete: tests build it over the scripted provider, never a double.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel

from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.llm_platform.application.structured_output import parse_structured
from stockdesk.llm_platform.application.tool_loop import Tool, ToolLimits, ToolLoopResult, run_tool_loop
from stockdesk.llm_platform.domain.dtos import ChatMessage

T = TypeVar("T", bound=BaseModel)
# How a re-ask tells the model its first answer was refused (research's experts, the debate).
FEEDBACK_HEADER = "\n\n## 上一次回答未通过校验，请修正\n"
# How a re-ask tells a chooser its card picks were refused (the experts' and the debate's choosers).
PICKS_FEEDBACK_HEADER = "\n\n## 上一次的选择未被接受，请修正\n"


@dataclass(frozen=True)
class Sampling:
    """A context's defaults: temperature, and the output budget in tokens."""

    temperature: float
    max_tokens: int


class LLMReply(BaseModel):
    """The raw text, the model LLMService validated it into, and the tokens the call used."""

    text: str
    parsed: BaseModel | None = None
    tokens: int = 0


@dataclass(frozen=True)
class Asked(Generic[T]):
    """One structured call: the prompt as sent (feedback included), the raw text, the answer."""

    prompt: str
    text: str
    parsed: T
    tokens: int


class LLMHandle:
    def __init__(self, service: LLMService, sampling: Sampling):
        self._service = service
        self.sampling = sampling

    def with_budget(self, max_tokens: int) -> LLMHandle:
        """The same handle with another output budget (a context's longer answers)."""
        return LLMHandle(self._service, Sampling(self.sampling.temperature, max_tokens))

    def generate(
        self,
        prompt: str,
        system_message: str,
        *,
        response_model: type[BaseModel],
        caller: str,
        max_tokens: int | None = None,
        sample: int = 0,
    ) -> LLMReply:
        """One validated call (raises LLMOutputParseError when the answer cannot be validated);
        `max_tokens` overrides the budget for a longer answer; `sample` > 0 shifts the service's
        seed by that much (the judge's stability samples)."""
        seed = None if sample == 0 else (self._service.seed or 0) + sample
        result = self._service.generate(
            prompt,
            system_message,
            temperature=self.sampling.temperature,
            response_model=response_model,
            caller=caller,
            max_tokens=max_tokens or self.sampling.max_tokens,
            seed=seed,
        )
        return LLMReply(text=result.text, parsed=result.parsed, tokens=result.usage.total_tokens)

    def text(self, prompt: str, system_message: str, *, caller: str, seed: int | None = None) -> LLMReply:
        """One call answered in plain text (the strategist's REASONING-then-JSON layout, which its
        generator splits and validates itself); `seed` samples with that seed."""
        result = self._service.generate(
            prompt,
            system_message,
            temperature=self.sampling.temperature,
            caller=caller,
            max_tokens=self.sampling.max_tokens,
            seed=seed,
        )
        return LLMReply(text=result.text, tokens=result.usage.total_tokens)

    @contextmanager
    def run_scope(self, run_id: str) -> Iterator[str]:
        """Attribute every call inside the block to `run_id` (see `LLMService.run_scope`)."""
        with self._service.run_scope(run_id):
            yield run_id

    def ask(
        self,
        prompt: str,
        system_message: str,
        *,
        response_model: type[T],
        caller: str,
        feedback: str | None = None,
        parse: Callable[[str], T] | None = None,
        max_tokens: int | None = None,
        header: str = FEEDBACK_HEADER,
        sample: int = 0,
    ) -> Asked[T]:
        """Every structured agent's call: `feedback` (what the checks found in a first answer) ends
        the prompt under `header`; the answer is the model LLMService validated, or, for a reply
        without one, the agent's own `parse` of the text. `sample` as in `generate`."""
        if feedback:
            prompt += f"{header}{feedback}"
        reply = self.generate(
            prompt,
            system_message,
            response_model=response_model,
            caller=caller,
            max_tokens=max_tokens,
            sample=sample,
        )
        if isinstance(reply.parsed, response_model):
            parsed = reply.parsed
        else:
            parsed = parse(reply.text) if parse else parse_structured(reply.text, response_model)
        return Asked(prompt, reply.text, parsed, reply.tokens)

    def with_tools(
        self,
        prompt: str,
        system_message: str,
        tools: Sequence[Tool],
        *,
        response_model: type[BaseModel],
        caller: str,
        limits: ToolLimits,
        answer_hint: str | None = None,
    ) -> ToolLoopResult:
        """One turn that may call `tools` (within `limits`) before its validated answer."""
        messages = [
            ChatMessage(role="system", content=system_message),
            ChatMessage(role="user", content=prompt),
        ]
        return run_tool_loop(
            self._service,
            messages,
            tools,
            response_model=response_model,
            limits=limits,
            caller=caller,
            answer_hint=answer_hint,
            temperature=self.sampling.temperature,
            max_tokens=self.sampling.max_tokens,
        )
