"""The contract every research expert's agent keeps: a snapshot (and, on a re-ask, the feedback on
the first answer) in, one parsed answer out.

It is the desk's one agent contract (`llm_platform.application.agent.Agent`) with the snapshot as
the question; each expert names its own pair (`ITechnicalAnalystAgentPort = ...`) in its port
module.
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from stockdesk.llm_platform.application.agent import Agent, AgentAnswer

S = TypeVar("S", bound=BaseModel)
A = TypeVar("A", bound=BaseModel)

IExpertAgentPort = Agent[S, AgentAnswer[A]]
