"""Application interface of debate: DebateService and its outcome DTO (it reads research's ExpertView),
and what the briefing context reads of a panel debate: the panel service, its sources, artifact,
price summary and tools port."""

from stockdesk.debate.application.dtos.outcome_dto import DebateOutcomeDTO
from stockdesk.debate.application.panel_tools import PanelTools
from stockdesk.debate.application.services.debate_service import DebateService
from stockdesk.debate.application.services.panel_debate import PanelDebateService
from stockdesk.debate.domain.dtos.panel import (
    PANEL_ROLES,
    ArticleSource,
    ChartSource,
    CitableSource,
    Conclusion,
    EventSource,
    PanelArtifact,
    PriceSummary,
    SecFilingSource,
    Source,
)
from stockdesk.debate.domain.model.enums import DebateMode

__all__ = [
    "PANEL_ROLES",
    "ArticleSource",
    "ChartSource",
    "CitableSource",
    "Conclusion",
    "DebateMode",
    "DebateOutcomeDTO",
    "DebateService",
    "EventSource",
    "PanelArtifact",
    "PanelDebateService",
    "PanelTools",
    "PriceSummary",
    "SecFilingSource",
    "Source",
]
