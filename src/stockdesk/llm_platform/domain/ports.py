"""Ports the LLM application service depends on; infrastructure implements them."""

from __future__ import annotations

from abc import ABC, abstractmethod

from stockdesk.llm_platform.domain.dtos import CompletionRequest, CompletionResponse, LLMCallRecord


class ILLMProvider(ABC):
    """One model endpoint. Implementations raise LLMTransientError for retryable faults."""

    name: str
    model: str
    supports_json_schema: bool = True

    @abstractmethod
    def complete(self, request: CompletionRequest) -> CompletionResponse: ...

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources (servers, sockets)."""


class ILLMCallAuditRepository(ABC):
    @abstractmethod
    def record(self, record: LLMCallRecord) -> None: ...


class IResponseCache(ABC):
    @abstractmethod
    def get(self, key: str) -> CompletionResponse | None: ...

    @abstractmethod
    def put(self, key: str, response: CompletionResponse) -> None: ...
