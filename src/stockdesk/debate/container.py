"""Composition root of debate: LLM bridge -> the bull-bear agents (+ the panel if given) -> DebateService."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import cached_property
from pathlib import Path
from typing import Any

from stockdesk.debate.application import DebateService
from stockdesk.debate.application.panel_tools import PanelData, PanelTools
from stockdesk.debate.application.services.panel_debate import PanelDebateService
from stockdesk.debate.domain.ports.agents import (
    IBearAdvocateAgentPort,
    IBullAdvocateAgentPort,
    IChoiceAgentPort,
    IResolutionAgentPort,
)
from stockdesk.debate.infrastructure.agents.bear_advocate.agent import BearAdvocateAgent
from stockdesk.debate.infrastructure.agents.bull_advocate.agent import BullAdvocateAgent
from stockdesk.debate.infrastructure.agents.choices.agent import ChoiceAgent
from stockdesk.debate.infrastructure.agents.resolution.agent import ResolutionAgent
from stockdesk.debate.infrastructure.agents.sampling import SAMPLING
from stockdesk.debate.infrastructure.panel_factory import PanelOptions, build_panel_service, build_panel_tools
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.shared.errors import BadRequestException


class DebateContainer:
    def __init__(
        self,
        llm_service: Callable[[], LLMService],
        panel_data: Callable[[], PanelData] | None = None,
        cache_dir: Path | None = None,
        panel_options: PanelOptions | None = None,
        output_style: Callable[[], str] = lambda: "prose",
    ):
        """Factories: the model starts, and the panel's tools are built, only when a debate asks.

        Without `panel_data` the panel mode answers 400 PANEL_NOT_CONFIGURED.
        """
        self._llm_service = llm_service
        self._panel_data = panel_data
        self._cache_dir = cache_dir
        self.panel_options = panel_options or PanelOptions()
        self.output_style = output_style

    @cached_property
    def llm(self) -> LLMHandle:
        return LLMHandle(self._llm_service(), SAMPLING)

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
    def panel_tools(self) -> PanelTools | None:
        """The panel's five spec tools over the store (None without panel data)."""
        if self._panel_data is None or self._cache_dir is None:
            return None
        return build_panel_tools(self.llm, self._panel_data(), self._cache_dir)

    @cached_property
    def panel(self) -> PanelDebateService | None:
        tools = self.panel_tools
        return None if tools is None else self.panel_with()

    def panel_with(self, **changes: Any) -> PanelDebateService:
        """A panel with some options changed (e.g. `max_rounds` from the command line)."""
        if self.panel_tools is None:
            raise BadRequestException(
                "the panel debate needs the market data store", code="PANEL_NOT_CONFIGURED"
            )
        options = replace(self.panel_options, **changes)
        return build_panel_service(self.llm, self.panel_tools, **options.service_kwargs())

    @cached_property
    def choice_agent(self) -> IChoiceAgentPort:
        return ChoiceAgent(self.llm)

    @property
    def service(self) -> DebateService:
        return DebateService(
            self.bull_agent,
            self.bear_agent,
            self.resolution_agent,
            panel=self.panel,
            chooser=self.choice_agent,
            output_style=self.output_style(),
        )
