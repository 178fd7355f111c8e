"""Application interface of debate: DebateService, its outcome DTO and the expert digests."""

from stockdesk.debate.application.dtos.outcome_dto import DebateOutcomeDTO
from stockdesk.debate.application.expert_digest import digest_expert_results
from stockdesk.debate.application.services.debate_service import DebateService, PanelDebateRunner
from stockdesk.debate.domain.dtos.expert_digest import ExpertDigest
from stockdesk.debate.domain.model.enums import DebateMode

__all__ = [
    "DebateMode",
    "DebateOutcomeDTO",
    "DebateService",
    "ExpertDigest",
    "PanelDebateRunner",
    "digest_expert_results",
]
