"""Ticker briefing scripts (spec 7): debates per ticker -> tool-less worker scripts -> merge in
ticker order -> one tool-less refiner; everything the models write is re-checked in code."""

from stockdesk.briefing.application.jobs import BriefingJob, BriefingJobs, BriefingStep
from stockdesk.briefing.application.requests import (
    BriefingRequest,
    normalise_tickers,
    read_base_script,
)
from stockdesk.briefing.application.results import BriefingResult
from stockdesk.briefing.application.service import BriefingService, Progress

__all__ = [
    "BriefingJob",
    "BriefingJobs",
    "BriefingRequest",
    "BriefingResult",
    "BriefingService",
    "BriefingStep",
    "Progress",
    "normalise_tickers",
    "read_base_script",
]
