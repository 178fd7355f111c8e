"""Data shapes the LLM platform exchanges with its callers and its providers."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field


class ToolSpec(BaseModel):
    """A function the model may call: its name, what it is for, and its arguments' JSON schema."""

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
    description: str
    parameters: dict[str, Any]


class ToolCall(BaseModel):
    """One call a model asked for. `error` says why it cannot run as written (not JSON, no name)."""

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None


class ChatMessage(BaseModel):
    """A chat turn; assistant turns may carry tool calls, `tool` turns answer one of them.

    Serialised with `exclude_defaults`, a plain turn hashes as it did before tools existed.
    """

    role: Literal["system", "user", "assistant", "tool"]
    content: str
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None

    def key(self) -> dict[str, Any]:
        return self.model_dump(exclude_defaults=True)


def _known_sum(a: int | None, b: int | None) -> int | None:
    """A sum of counts that is unknown as soon as one part is: a guess would pass for a measurement."""
    return None if a is None or b is None else a + b


class TokenUsage(BaseModel):
    """Tokens of one call (or of a call and its repair).

    `prompt_tokens` is the whole prompt. Of it, a server with a prompt cache (llama.cpp's
    `timings.prompt_n` / `cache_n`, or an API's `prompt_tokens_details.cached_tokens`) says how many
    it really evaluated and how many it reused from the cache: that, not the prompt size, is what
    a call costs on a CPU. None when the provider does not say.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_tokens_evaluated: int | None = None
    prompt_tokens_cached: int | None = None

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            prompt_tokens_evaluated=_known_sum(self.prompt_tokens_evaluated, other.prompt_tokens_evaluated),
            prompt_tokens_cached=_known_sum(self.prompt_tokens_cached, other.prompt_tokens_cached),
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
    tools: list[ToolSpec] = Field(default_factory=list, description="functions the model may call")


class CompletionResponse(BaseModel):
    """What a provider answered, before any parsing."""

    text: str
    finish_reason: str | None = None
    usage: TokenUsage = Field(default_factory=TokenUsage)
    model: str
    provider: str
    tool_calls: list[ToolCall] = Field(default_factory=list)


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
    tool_calls: list[ToolCall] = Field(default_factory=list)
    call_id: str | None = Field(default=None, description="the audit row of the call that answered")


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
    prompt_tokens_evaluated: int | None = Field(
        default=None, description="of the prompt, tokens the model evaluated (None: not reported)"
    )
    prompt_tokens_cached: int | None = Field(
        default=None, description="of the prompt, tokens reused from the server's cache (None: not reported)"
    )
    latency_seconds: float = 0.0
    status: Literal["ok", "error", "cached", "parse_error"]
    error_class: str | None = None
    error_message: str | None = None
    tags: list[str] = Field(default_factory=list)
    call_id: str | None = None
    tool_calls: list[dict[str, Any]] = Field(
        default_factory=list, description="the calls the model asked for: {id, name, arguments}"
    )


class ToolCallRecord(BaseModel):
    """One executed tool call, tied to the audited LLM call that asked for it."""

    call_id: str
    tool_call_id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    status: Literal["ok", "error", "cached", "refused"]
    result_chars: int = 0
    seconds: float = 0.0
    error: str | None = None


class AuditedToolCall(BaseModel):
    """A tool call as `stockdesk llm calls` lists it: what was asked and what came back."""

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    status: str = Field(description="ok, error, cached, refused, or not_run when nobody ran it")
    result_chars: int = 0
    error: str | None = None


class AuditedCall(BaseModel):
    """One audited LLM call: model, purpose (the caller), tokens, seconds and its tool calls."""

    call_id: str | None
    created_at: datetime
    run_id: str
    model: str
    provider: str
    purpose: str | None
    status: str
    tokens: int
    prompt_tokens: int
    completion_tokens: int
    prompt_tokens_evaluated: int | None = None
    prompt_tokens_cached: int | None = None
    seconds: float
    tool_calls: list[AuditedToolCall] = Field(default_factory=list)
