"""Debate's domain errors (mapped to 4xx by the shared error handlers)."""

from __future__ import annotations

from stockdesk.shared.errors import BadRequestException


class InvalidExpertResultsError(BadRequestException):
    """The expert results handed to the debate are empty or unreadable."""

    code = "INVALID_EXPERT_RESULTS"
