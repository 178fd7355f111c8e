"""Application interface of debate: DebateService and its outcome DTO (it reads research's ExpertView)."""

from stockdesk.debate.application.dtos.outcome_dto import DebateOutcomeDTO
from stockdesk.debate.application.services.debate_service import DebateService, PanelDebateRunner
from stockdesk.debate.domain.model.enums import DebateMode

__all__ = [
    "DebateMode",
    "DebateOutcomeDTO",
    "DebateService",
    "PanelDebateRunner",
]
