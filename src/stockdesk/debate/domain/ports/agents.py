"""The bull-bear agents, named as the desk's one agent contract (`Agent[question, answer]`): one
LLM round each, answered with the prompt, raw text and parse.

`feedback` is set on the one repair round after the claim checks: what the first answer got
wrong, to be added to the prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel

from stockdesk.debate.domain.dtos.bull_bear import BearArgument, BullArgument, ResolutionResult
from stockdesk.debate.domain.dtos.choices import ChoiceRole
from stockdesk.llm_platform.application.agent import Agent
from stockdesk.llm_platform.application.agent import AgentAnswer as AgentAnswer
from stockdesk.research.application import ExpertView


@dataclass(frozen=True)
class CaseQuestion:
    """What an advocate argues from: the symbol and the experts' digests only."""

    symbol: str
    digests: Sequence[ExpertView]


@dataclass(frozen=True)
class ResolutionQuestion:
    """Both cases, to be weighed against the digests: direction, confidence, risks, disagreements."""

    symbol: str
    digests: Sequence[ExpertView]
    bull: BullArgument
    bear: BearArgument


@dataclass(frozen=True)
class ChoiceQuestion:
    """Choices mode: the views' cards for one role, of which the agent only picks ids
    (domain/dtos/choices.py); `cases`: the advocates' rendered cases, which the resolution reads.
    The parsed answer is the role's `choice_model`."""

    role: ChoiceRole
    symbol: str
    views: Sequence[ExpertView]
    cases: str = ""


# Both advocates: the bull argues for the stock, the bear against it, with the same question.
IBullAdvocateAgentPort = Agent[CaseQuestion, AgentAnswer[BullArgument]]
IBearAdvocateAgentPort = Agent[CaseQuestion, AgentAnswer[BearArgument]]
IResolutionAgentPort = Agent[ResolutionQuestion, AgentAnswer[ResolutionResult]]
IChoiceAgentPort = Agent[ChoiceQuestion, AgentAnswer[BaseModel]]
