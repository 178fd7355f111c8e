"""Application interface of judge: JudgeService, the outcome conversion, VerdictDTO, and the
holding a verdict may be given (with the T+1 lock rule its builder applies)."""

from stockdesk.judge.application.dtos.verdict_dto import VerdictDTO
from stockdesk.judge.application.services.debate_outcome import judge_input_from_outcome
from stockdesk.judge.application.services.evidence_check import (
    MIN_EXPERTS_WITH_DATA,
    is_sufficient,
    signals_with_data,
)
from stockdesk.judge.application.services.holder_plan import locked_shares
from stockdesk.judge.application.services.judge_service import JudgeService
from stockdesk.judge.domain.dtos.holding import HolderAction, HolderPlan, Holding

__all__ = [
    "MIN_EXPERTS_WITH_DATA",
    "HolderAction",
    "HolderPlan",
    "Holding",
    "JudgeService",
    "VerdictDTO",
    "is_sufficient",
    "judge_input_from_outcome",
    "locked_shares",
    "signals_with_data",
]
