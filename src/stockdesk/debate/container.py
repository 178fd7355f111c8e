"""Composition root of debate: LLM bridge -> the bull-bear agents (+ the panel if given) -> DebateService."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from pathlib import Path

from stockdesk.debate.application import DebateService
from stockdesk.debate.application.services.panel_debate import PanelDebateService
from stockdesk.debate.domain.ports.agents import (
    IBearAdvocateAgentPort,
    IBullAdvocateAgentPort,
    IResolutionAgentPort,
)
from stockdesk.debate.domain.ports.llm_port import ILLMPort
from stockdesk.debate.domain.ports.panel import IPanelToolsPort
from stockdesk.debate.infrastructure.adapters.llm_adapter import LLMAdapter
from stockdesk.debate.infrastructure.agents.bear_advocate.agent import BearAdvocateAgent
from stockdesk.debate.infrastructure.agents.bull_advocate.agent import BullAdvocateAgent
from stockdesk.debate.infrastructure.agents.resolution.agent import ResolutionAgent
from stockdesk.debate.infrastructure.panel_factory import build_panel_service, build_panel_tools
from stockdesk.debate.infrastructure.tools.store_tools import PanelData
from stockdesk.llm_platform.application.llm_service import LLMService


class DebateContainer:
    def __init__(
        self,
        llm_service: Callable[[], LLMService],
        panel_data: Callable[[], PanelData] | None = None,
        cache_dir: Path | None = None,
    ):
        """Factories: the model starts, and the panel's tools are built, only when a debate asks.

        Without `panel_data` the panel mode answers 400 PANEL_NOT_CONFIGURED.
        """
        self._llm_service = llm_service
        self._panel_data = panel_data
        self._cache_dir = cache_dir

    @cached_property
    def llm(self) -> ILLMPort:
        return LLMAdapter(self._llm_service())

    @cached_property
    def bull_agent(self) -> IBullAdvocateAgentPort:
        return BullAdvocateAgent(self.llm)

    @cached_property
    def bear_agent(self) -> IBearAdvocateAgentPort:
        return BearAdvocateAgent(self.llm)

    @cached_property
    def resolution_agent(self) -> IResolutionAgentPort:
        return ResolutionAgent(self.llm)

    @cached_property
    def panel_tools(self) -> IPanelToolsPort | None:
        """The panel's five spec tools over the store (None without panel data)."""
        if self._panel_data is None or self._cache_dir is None:
            return None
        return build_panel_tools(self.llm, self._panel_data(), self._cache_dir)

    @cached_property
    def panel(self) -> PanelDebateService | None:
        tools = self.panel_tools
        return None if tools is None else build_panel_service(self.llm, tools)

    @property
    def service(self) -> DebateService:
        return DebateService(self.bull_agent, self.bear_agent, self.resolution_agent, panel=self.panel)
