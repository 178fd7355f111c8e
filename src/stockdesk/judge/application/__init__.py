"""Application interface of judge: JudgeService, the outcome conversion and VerdictDTO."""

from stockdesk.judge.application.dtos.verdict_dto import VerdictDTO
from stockdesk.judge.application.services.debate_outcome import judge_input_from_outcome
from stockdesk.judge.application.services.judge_service import JudgeService

__all__ = ["JudgeService", "VerdictDTO", "judge_input_from_outcome"]
