"""Composition root of judge: LLM bridge -> verdict agent -> JudgeService."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

from stockdesk.judge.application import JudgeService
from stockdesk.judge.domain.ports.judge_verdict_agent import IJudgeVerdictAgentPort
from stockdesk.judge.infrastructure.adapters.judge_verdict_agent_adapter import (
    SAMPLING,
    JudgeVerdictAgentAdapter,
)
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.application.llm_service import LLMService


class JudgeContainer:
    def __init__(
        self, llm_service: Callable[[], LLMService], output_style: Callable[[], str] = lambda: "prose"
    ):
        """`llm_service` is a factory: the model starts only when a verdict is really asked for;
        `output_style`: "choices" (the model picks card ids) or "prose" (it writes)."""
        self._llm_service = llm_service
        self._output_style = output_style

    @cached_property
    def agent(self) -> IJudgeVerdictAgentPort:
        return JudgeVerdictAgentAdapter(LLMHandle(self._llm_service(), SAMPLING), self._output_style())

    @property
    def service(self) -> JudgeService:
        return JudgeService(self.agent)
