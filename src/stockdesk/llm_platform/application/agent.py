"""The one agent contract and the one prompt-filling agent every context builds on.

Every LLM agent of the desk (the five experts and their evidence choosers, the advocates, the
resolution, the panel and its moderator, the judge, the briefing's writer and refiner, the
strategist) is asked the same way: a question that code built, and on a re-ask the checks'
findings on the first answer, in; one answer out. So there is one abstract class, `Agent`, and a
context names its agents as aliases of it (`IResolutionAgentPort = Agent[ResolutionQuestion, ...]`)
instead of writing an abstract class per agent with one implementation each.

`PromptAgent` is the mechanism most agents share: fill `<package>/prompts/user.md` with
`str.format()`, ask for a pydantic model through the LLM handle, keep what the audit needs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from stockdesk.llm_platform.application.llm_handle import FEEDBACK_HEADER, Asked, LLMHandle
from stockdesk.shared.prompts import load_prompts

T = TypeVar("T", bound=BaseModel)
Q = TypeVar("Q")
R = TypeVar("R")


class AgentAnswer(BaseModel, Generic[T]):
    """One LLM round as the audit keeps it: who (when the caller names it), the prompt sent, the
    raw text back, the parsed answer and the tokens spent."""

    agent: str = ""
    input: str
    output: str
    parsed: T
    tokens: int = 0


def answered(asked: Asked[T], agent: str = "") -> AgentAnswer[T]:
    """What the audit keeps of one `LLMHandle.ask`: the prompt as sent (feedback included), the raw
    text, the validated answer and the tokens."""
    return AgentAnswer[T](
        agent=agent, input=asked.prompt, output=asked.text, parsed=asked.parsed, tokens=asked.tokens
    )


class Agent(ABC, Generic[Q, R]):
    """The contract every LLM agent keeps. Tests replace an agent through it (scripted answers)
    and each context's services see only it, so the services never import an agent's prompts."""

    @abstractmethod
    def answer(self, question: Q, feedback: str | None = None) -> R:
        """One LLM round over `question`; `feedback` (why the last answer was refused) ends the
        prompt of a re-ask. Agents asked once (the moderator, the refiner) ignore it."""


class PromptAgent(Generic[T]):
    """Fills `<package>/prompts/user.md` with `str.format()` and asks for `output_model`.

    With `system` given, that text is the system message and the package's own `system.md`
    opens the user message instead (the research experts share one system prompt, so a model
    server with a prompt cache evaluates it once for all five). The answer LLMService validated
    is used as is; `parse`, the agent's own strict parser, reads the raw text only when no
    validated model came back.
    """

    def __init__(
        self,
        llm: LLMHandle,
        *,
        package: str,
        agent: str,
        caller: str,
        output_model: type[T],
        parse: Callable[[str], T] | None = None,
        system: str | None = None,
        max_tokens: int | None = None,
        folder: str = "prompts",
        header: str = FEEDBACK_HEADER,
    ):
        """`folder`: where the package keeps this agent's `system.md` and `user.md`; `header`:
        the line a re-ask's feedback goes under (in the language the agent writes)."""
        self._llm = llm
        self._prompts = load_prompts(package, folder)
        self._header = header
        self._agent = agent
        self._caller = caller
        self._model = output_model
        self._parse = parse
        self._system = system
        self._max_tokens = max_tokens

    @property
    def system_prompt(self) -> str:
        """The system message sent."""
        return self._system if self._system is not None else self._prompts.system

    @property
    def instructions(self) -> str:
        """The package's own instructions (its prompts/system.md)."""
        return self._prompts.system

    @property
    def output_model(self) -> type[T]:
        """The model the answer is validated against."""
        return self._model

    @property
    def template(self) -> str:
        """The package's user template, unfilled (its placeholders are the values `ask` needs)."""
        return self._prompts.user

    def user_prompt(self, **values: Any) -> str:
        """The user message: the filled template, after the instructions when the system
        message is shared."""
        filled = self._prompts.render_user(**values)
        return filled if self._system is None else f"{self._prompts.system}\n\n{filled}"

    def ask(self, feedback: str | None = None, **values: Any) -> AgentAnswer[T]:
        """One call; `feedback` (the checks' findings on a first answer) ends the prompt."""
        asked = self._llm.ask(
            self.user_prompt(**values),
            self.system_prompt,
            response_model=self._model,
            caller=self._caller,
            feedback=feedback,
            parse=self._parse,
            max_tokens=self._max_tokens,
            header=self._header,
        )
        return answered(asked, self._agent)
