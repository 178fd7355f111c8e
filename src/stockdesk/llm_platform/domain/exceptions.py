"""LLM platform errors; each message says what the user can do about it."""

from typing import Any

from stockdesk.shared.errors import (
    BadRequestException,
    ConfigurationError,
    LLMOutputParseError,
    ServiceUnavailableError,
    StockdeskError,
)

__all__ = [
    "LLMOutputParseError",
    "LLMProviderError",
    "LLMTimeoutError",
    "LLMTransientError",
    "LocalModelError",
    "ProviderLimitWaitError",
    "TokenBudgetExceededError",
    "UnknownAliasError",
]


ABORTED = "the call was aborted: its job was cancelled"  # a provider's call cut by a cancel


class UnknownAliasError(BadRequestException):
    code = "LLM_UNKNOWN_ALIAS"


class LLMProviderError(ServiceUnavailableError):
    """A provider failed in a way retrying will not fix (bad key, bad request, missing model)."""

    code = "LLM_PROVIDER_ERROR"


class LLMTransientError(LLMProviderError):
    """Timeout, connection error, 429 or 5xx: worth a retry, then a fail-over to the next alias.

    `retry_after` is the provider's own hint (Retry-After and the like), in seconds, when it gave
    one: the retry waits at least that long.
    """

    code = "LLM_UNAVAILABLE"

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any):
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class LLMTimeoutError(LLMTransientError):
    """The provider did not answer in time: fail over, but do not resend the same request to it."""

    code = "LLM_TIMEOUT"


class ProviderLimitWaitError(LLMTimeoutError):
    """A configured provider limit kept refusing for too long: fail over rather than queue on."""

    code = "LLM_LIMIT_WAIT"


class LocalModelError(ConfigurationError):
    """The embedded model's files or runtime are missing or corrupt."""

    code = "LOCAL_MODEL_ERROR"


class TokenBudgetExceededError(StockdeskError):
    code = "LLM_TOKEN_BUDGET_EXCEEDED"
    http_status = 429
