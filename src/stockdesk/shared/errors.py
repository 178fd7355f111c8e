"""Exceptions every context raises and every interface (CLI, REST) maps the same way.

Each carries a stable `code` so that clients can tell errors apart, and the HTTP status
the REST layer answers with.
"""

from __future__ import annotations

from typing import Any

from stockdesk.shared.redact import redact_text


class StockdeskError(Exception):
    """Base of all expected errors: the message is meant for the user, one line.

    The message is redacted on the way in (URL credentials, known keys), as it ends up in logs,
    audit rows, REST answers and the terminal, often quoting a provider's error or URL.
    """

    code: str = "STOCKDESK_ERROR"
    http_status: int = 500

    def __init__(self, message: str, *, code: str | None = None, details: dict[str, Any] | None = None):
        message = redact_text(message)
        super().__init__(message)
        self.message = message
        if code:
            self.code = code
        self.details = details or {}

    @property
    def exit_code(self) -> int:
        """The CLI's exit status: 2 for what the user can fix by asking differently (a 4xx), else 1."""
        return 2 if 400 <= self.http_status < 500 else 1


class BadRequestException(StockdeskError):
    """The caller's input is wrong (HTTP 400, CLI exit 2)."""

    code = "BAD_REQUEST"
    http_status = 400


class NotFoundException(StockdeskError):
    """The thing asked for does not exist (HTTP 404)."""

    code = "NOT_FOUND"
    http_status = 404


class ConflictException(StockdeskError):
    """The thing exists but is not in a state that allows the request yet (HTTP 409)."""

    code = "CONFLICT"
    http_status = 409


class ConfigurationError(StockdeskError):
    """Settings are missing or inconsistent; the message says which setting to fix."""

    code = "CONFIGURATION_ERROR"
    http_status = 500


class ServiceUnavailableError(StockdeskError):
    """A dependency (LLM provider, data provider) cannot be reached right now (HTTP 503)."""

    code = "SERVICE_UNAVAILABLE"
    http_status = 503


class LLMOutputParseError(StockdeskError):
    """The model's answer could not be turned into the expected structure (HTTP 422).

    Carries the raw output so that callers can log or show it; it is never returned as a result.
    """

    code = "LLM_OUTPUT_PARSE_ERROR"
    http_status = 422

    def __init__(self, message: str, *, raw_output: str = "", errors: list[str] | None = None):
        super().__init__(message, details={"errors": errors or []})
        self.raw_output = raw_output
        self.errors = errors or []


def one_line(exc: BaseException) -> str:
    """What to record of a failure: our errors speak for themselves, others name their type."""
    if isinstance(exc, StockdeskError):
        return exc.message
    return redact_text(f"{type(exc).__name__}: {exc}")


class UnauthorizedError(StockdeskError):
    """No API key, or one that is unknown or revoked (HTTP 401)."""

    code = "UNAUTHORIZED"
    http_status = 401


class ForbiddenError(StockdeskError):
    """The request is understood but refused, e.g. a cross-site Origin (HTTP 403)."""

    code = "FORBIDDEN"
    http_status = 403


class LimitExceededError(StockdeskError):
    """The request asks for more than a configured bound allows: universe, window, iterations (HTTP 422)."""

    code = "LIMIT_EXCEEDED"
    http_status = 422


class TooManyRequestsError(StockdeskError):
    """A rate, concurrency or budget limit is reached for now (HTTP 429 with Retry-After)."""

    code = "TOO_MANY_REQUESTS"
    http_status = 429

    def __init__(self, message: str, *, retry_after: int, code: str | None = None):
        super().__init__(message, code=code, details={"retry_after": retry_after})
        self.retry_after = retry_after
