"""Composition of the panel debate: store tools + page index cache + the two agents over one ILLMPort."""

from __future__ import annotations

from pathlib import Path

from stockdesk.debate.application.services.panel_debate import PanelDebateService
from stockdesk.debate.domain.ports.llm_port import ILLMPort
from stockdesk.debate.domain.ports.panel import IPanelToolsPort
from stockdesk.debate.infrastructure.agents.moderator.agent import ModeratorAgent
from stockdesk.debate.infrastructure.agents.panel_expert.agent import PanelExpertAgent
from stockdesk.debate.infrastructure.tools.page_index import FilingPageIndex
from stockdesk.debate.infrastructure.tools.store_tools import PanelData, StorePanelTools


def build_panel_tools(llm: ILLMPort, data: PanelData, cache_dir: Path) -> StorePanelTools:
    """The five spec tools over the store; `cache_dir` holds the filing page indexes."""
    return StorePanelTools(data, FilingPageIndex(llm, cache_dir))


def build_panel_service(
    llm: ILLMPort,
    tools: IPanelToolsPort,
    *,
    min_rounds: int = 2,
    max_rounds: int = 4,
    consensus_threshold: float = 0.7,
) -> PanelDebateService:
    return PanelDebateService(
        tools,
        PanelExpertAgent(llm),
        ModeratorAgent(llm),
        min_rounds=min_rounds,
        max_rounds=max_rounds,
        consensus_threshold=consensus_threshold,
    )
