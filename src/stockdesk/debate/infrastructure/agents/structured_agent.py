"""The one mechanism the bull-bear agents share: prompt resources filled -> one LLM call -> strict parse."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from stockdesk.debate.domain.ports.agents import AgentAnswer
from stockdesk.llm_platform.application.llm_handle import LLMHandle, Sampling
from stockdesk.llm_platform.application.structured_output import parse_or_log
from stockdesk.shared.prompts import load_prompts

T = TypeVar("T", bound=BaseModel)
# The debate's answers are capped short (the embedded 1.5B model writes about 20 tokens a second)
# and its temperature is a little above the judge's: advocates should argue, not copy each other.
SAMPLING = Sampling(temperature=0.3, max_tokens=600)


def parse_answer(raw: str, model: type[T], agent: str) -> T:
    """Strip <think>, extract the JSON, validate strictly; log the raw text (truncated) and raise
    LLMOutputParseError when it is not a valid `model`."""
    return parse_or_log(raw, model, f"debate.{agent}")


class StructuredAgent(Generic[T]):
    """Fills `<package>/prompts/user.md` with str.format() and asks for `output_model`.

    The answer LLMService validated against `output_model` is used as is (one parse); `parse`, the
    agent's own strict parser, reads the raw text only from a port that hands no parsed model back.
    """

    def __init__(
        self, llm: LLMHandle, *, package: str, agent: str, output_model: type[T], parse: Callable[[str], T]
    ):
        self._llm = llm
        self._prompts = load_prompts(package)
        self._agent = agent
        self._model = output_model
        self._parse = parse

    def ask(self, feedback: str | None = None, **values: Any) -> AgentAnswer[T]:
        """One call; `feedback` (the claim checks' findings on a first answer) ends the prompt."""
        asked = self._llm.ask(
            self._prompts.render_user(**values),
            self._prompts.system,
            response_model=self._model,
            caller=f"debate.{self._agent}",
            feedback=feedback,
            parse=self._parse,
        )
        return AgentAnswer[T](
            agent=self._agent, input=asked.prompt, output=asked.text, parsed=asked.parsed, tokens=asked.tokens
        )
