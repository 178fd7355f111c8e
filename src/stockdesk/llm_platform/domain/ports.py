"""Ports the LLM application service depends on; infrastructure implements them."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import datetime

from pydantic import BaseModel

from stockdesk.llm_platform.domain.dtos import (
    AuditedCall,
    CompletionRequest,
    CompletionResponse,
    LLMCallRecord,
    ToolCallRecord,
)
from stockdesk.llm_platform.domain.rate_limits import LimitGrant


class ILLMProvider(ABC):
    """One model endpoint. Implementations raise LLMTransientError for retryable faults."""

    name: str
    model: str
    supports_json_schema: bool = True

    @abstractmethod
    def complete(self, request: CompletionRequest) -> CompletionResponse: ...

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources (servers, sockets)."""


class IRateLimiter(ABC):
    """Provider limits around each provider call, held across every caller that shares it.

    `acquire` blocks until every configured limit of the alias allows the call, or raises
    ProviderLimitWaitError (naming the limit) after the limiter's maximum wait. `release` ends
    the call with its real token usage, so that tokens/min counts what was spent, not guessed.
    """

    @abstractmethod
    def acquire(self, alias: str, estimated_tokens: int, *, lease_seconds: float) -> LimitGrant:
        """`lease_seconds`: after that the grant frees itself (a caller that died never releases)."""

    @abstractmethod
    def release(self, grant: LimitGrant, actual_tokens: int | None) -> None:
        """`actual_tokens` None keeps the reservation (a failed call: what it cost is unknown)."""

    @abstractmethod
    def cool_down(self, alias: str, seconds: float) -> None:
        """The provider asked every caller to wait (429 with a hint): hold new grants that long."""


class CacheStats(BaseModel):
    """What the response cache holds: entry count, stored size and the age range of the entries."""

    entries: int = 0
    size_bytes: int = 0  # UTF-8 size of the stored responses (JSON), not counting indexes
    oldest: datetime | None = None
    newest: datetime | None = None


class ILLMStore(ABC):
    """What the LLM platform keeps in the database: the audit of every call and the response cache."""

    # ---- the audit ---------------------------------------------------------------------------
    @abstractmethod
    def record(self, record: LLMCallRecord) -> None: ...

    @abstractmethod
    def record_tools(self, records: list[ToolCallRecord]) -> None:
        """Store executed tool calls (each names the LLM call that asked for it)."""

    @abstractmethod
    def recent(self, limit: int = 20) -> list[AuditedCall]:
        """The newest `limit` calls, newest first, each with its tool calls and their results."""

    # ---- the response cache ------------------------------------------------------------------
    @abstractmethod
    def get(self, key: str) -> CompletionResponse | None: ...

    @abstractmethod
    def put(self, key: str, response: CompletionResponse) -> None: ...

    @abstractmethod
    def stats(self) -> CacheStats: ...

    @abstractmethod
    def clear(self) -> int:
        """Delete every entry; return how many were deleted."""
