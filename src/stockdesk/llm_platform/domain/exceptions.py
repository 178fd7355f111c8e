"""LLM platform errors; each message says what the user can do about it."""

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
    "SearchProviderError",
    "TokenBudgetExceededError",
    "UnknownAliasError",
]


class UnknownAliasError(BadRequestException):
    code = "LLM_UNKNOWN_ALIAS"


class LLMProviderError(ServiceUnavailableError):
    """A provider failed in a way retrying will not fix (bad key, bad request, missing model)."""

    code = "LLM_PROVIDER_ERROR"


class LLMTransientError(LLMProviderError):
    """Timeout, connection error or 5xx: worth a retry, then a fail-over to the next alias."""

    code = "LLM_UNAVAILABLE"


class LLMTimeoutError(LLMTransientError):
    """The provider did not answer in time: fail over, but do not resend the same request to it."""

    code = "LLM_TIMEOUT"


class LocalModelError(ConfigurationError):
    """The embedded model's files or runtime are missing or corrupt."""

    code = "LOCAL_MODEL_ERROR"


class TokenBudgetExceededError(StockdeskError):
    code = "LLM_TOKEN_BUDGET_EXCEEDED"
    http_status = 429


class SearchProviderError(ServiceUnavailableError):
    """A search provider failed (network, 4xx/5xx, unreadable answer): try the next provider."""

    code = "SEARCH_PROVIDER_ERROR"
