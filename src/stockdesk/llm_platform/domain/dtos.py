"""Data shapes the LLM platform exchanges with its callers and its providers."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class ChatMessage(BaseModel):
    role: Literal["system", "user", "assistant"]
    content: str


class TokenUsage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
        )


class CompletionRequest(BaseModel):
    """What a provider is asked: messages plus sampling and an optional JSON schema."""

    messages: list[ChatMessage]
    temperature: float = 0.2
    max_tokens: int = 1024
    seed: int | None = Field(default=None, description="fixed sampling seed: same prompt, same answer")
    repetition_penalty: float | None = Field(
        default=None,
        description="discourages repeated phrases (llama.cpp's DRY multiplier on the embedded "
        "model; remote providers ignore it)",
    )
    json_schema: dict[str, Any] | None = None
    schema_name: str = "response"
    timeout_seconds: float = 240.0


class CompletionResponse(BaseModel):
    """What a provider answered, before any parsing."""

    text: str
    finish_reason: str | None = None
    usage: TokenUsage = Field(default_factory=TokenUsage)
    model: str
    provider: str


class LLMResult(BaseModel):
    """What `LLMService.generate` returns: text, parsed object (if a schema was asked) and costs."""

    model_config = {"arbitrary_types_allowed": True}

    text: str
    parsed: Any | None = None
    usage: TokenUsage = Field(default_factory=TokenUsage)
    latency_seconds: float = 0.0
    model: str
    provider: str
    alias: str
    attempts: int = 1
    cached: bool = False
    finish_reason: str | None = None


class LLMCallRecord(BaseModel):
    """One audited provider call (never the key, never the full prompt: its hash)."""

    run_id: str
    caller: str | None
    alias: str
    provider: str
    model: str
    prompt_hash: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_seconds: float = 0.0
    status: Literal["ok", "error", "cached", "parse_error"]
    error_class: str | None = None
    error_message: str | None = None
    tags: list[str] = Field(default_factory=list)
