"""Judge errors."""

from __future__ import annotations

from stockdesk.shared.errors import BadRequestException


class InvalidDebateOutcomeError(BadRequestException):
    """The debate outcome handed to the judge is missing what a verdict needs."""

    code = "INVALID_DEBATE_OUTCOME"
