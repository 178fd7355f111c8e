"""Application interface of judge: JudgeService, the outcome conversion and VerdictDTO."""

from stockdesk.judge.application.dtos.verdict_dto import VerdictDTO
from stockdesk.judge.application.services.debate_outcome import judge_input_from_outcome
from stockdesk.judge.application.services.evidence_check import (
    MIN_EXPERTS_WITH_DATA,
    is_sufficient,
    signals_with_data,
)
from stockdesk.judge.application.services.judge_service import JudgeService

__all__ = [
    "MIN_EXPERTS_WITH_DATA",
    "JudgeService",
    "VerdictDTO",
    "is_sufficient",
    "judge_input_from_outcome",
    "signals_with_data",
]
