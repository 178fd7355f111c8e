"""Web search errors; each message says what the user can do about it."""

from stockdesk.shared.errors import ServiceUnavailableError


class SearchProviderError(ServiceUnavailableError):
    """A search provider failed (network, 4xx/5xx, unreadable answer): try the next provider."""

    code = "SEARCH_PROVIDER_ERROR"
