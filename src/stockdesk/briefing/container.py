"""Composition root of briefings: the debate's panel and tools, the worker and refiner agents over
the LLM handle with the briefing's sampling, and the durable jobs over the task store."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

from stockdesk.briefing.application import BriefingJobs, BriefingService
from stockdesk.briefing.infrastructure.factory import SAMPLING, build_briefing_jobs, build_briefing_service
from stockdesk.debate.application import PanelDebateService, PanelTools
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.shared.tasks import ITaskStore


class BriefingContainer:
    def __init__(
        self,
        llm_service: Callable[[], LLMService],
        panel: Callable[[], PanelDebateService | None],
        tools: Callable[[], PanelTools | None],
        panel_with_rounds: Callable[[int], PanelDebateService],
        tasks: Callable[[], ITaskStore] | None = None,
    ):
        """Factories, all: the panel is built only when a briefing asks. Without the panel (no
        market store) `service` is None; without `tasks` briefings run only in the foreground
        (`jobs` is None)."""
        self._llm_service = llm_service
        self._panel = panel
        self._tools = tools
        self._panel_with_rounds = panel_with_rounds
        self._tasks = tasks

    @cached_property
    def service(self) -> BriefingService | None:
        """Ticker briefing scripts over the panel; None without it."""
        panel, tools = self._panel(), self._tools()
        if panel is None or tools is None:
            return None
        llm = LLMHandle(self._llm_service(), SAMPLING)
        return build_briefing_service(panel, tools, llm, panel_with_rounds=self._panel_with_rounds)

    @cached_property
    def jobs(self) -> BriefingJobs | None:
        """Briefings as durable background jobs (REST, web); None without the panel or a task store."""
        service = self.service
        return None if service is None or self._tasks is None else build_briefing_jobs(service, self._tasks())
