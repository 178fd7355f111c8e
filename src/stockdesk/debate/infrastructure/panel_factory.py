"""Composition of the panel debate: store tools + page index cache + the two agents over one LLMHandle."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stockdesk.debate.application.panel_tools import PanelData, PanelTools
from stockdesk.debate.application.services.panel_debate import PanelDebateService
from stockdesk.debate.infrastructure.agents.moderator.agent import ModeratorAgent
from stockdesk.debate.infrastructure.agents.panel_expert.agent import PanelExpertAgent
from stockdesk.debate.infrastructure.tools.page_index import FilingPageIndex
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.application.tool_loop import ToolLimits


@dataclass(frozen=True)
class PanelOptions:
    """The panel's settings (`Settings.panel_*`)."""

    min_rounds: int = 2
    max_rounds: int = 4
    consensus_threshold: float = 0.7
    max_tool_calls: int = 4
    tool_token_budget: int = 16_000

    def service_kwargs(self) -> dict[str, Any]:
        return {
            "min_rounds": self.min_rounds,
            "max_rounds": self.max_rounds,
            "consensus_threshold": self.consensus_threshold,
            "tool_limits": ToolLimits(max_calls=self.max_tool_calls, max_tokens=self.tool_token_budget),
        }


def build_panel_tools(llm: LLMHandle, data: PanelData, cache_dir: Path) -> PanelTools:
    """The five spec tools over the store; `cache_dir` holds the filing page indexes."""
    return PanelTools(data, FilingPageIndex(llm, cache_dir).index)


def build_panel_service(
    llm: LLMHandle,
    tools: PanelTools,
    *,
    min_rounds: int = 2,
    max_rounds: int = 4,
    consensus_threshold: float = 0.7,
    tool_limits: ToolLimits | None = None,
) -> PanelDebateService:
    """`tool_limits`: the experts' calls and tokens per turn (max_calls 0: no tools)."""
    return PanelDebateService(
        tools,
        PanelExpertAgent(llm, tools, tool_limits),
        ModeratorAgent(llm),
        min_rounds=min_rounds,
        max_rounds=max_rounds,
        consensus_threshold=consensus_threshold,
    )
