"""OpenAI-compatible provider on the official `openai` SDK.

Covers OpenAI, DeepSeek, Qwen/DashScope, Moonshot, Ollama, vLLM, llama.cpp servers, and the
embedded model's own server. Maps SDK errors onto transient (retry, fail over) or permanent.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import httpx

from stockdesk.llm_platform.domain.dtos import (
    ChatMessage,
    CompletionRequest,
    CompletionResponse,
    TokenUsage,
    ToolCall,
)
from stockdesk.llm_platform.domain.exceptions import LLMProviderError, LLMTimeoutError, LLMTransientError
from stockdesk.llm_platform.domain.ports import ILLMProvider
from stockdesk.llm_platform.infrastructure.abortable_http import abortable_client
from stockdesk.llm_platform.infrastructure.retry_hints import retry_after_seconds
from stockdesk.shared.redact import redact_text, redact_url, register_secrets, url_secrets
from stockdesk.shared.tasks.cancel import cancel_hook, current_token

if TYPE_CHECKING:
    import openai

logger = logging.getLogger(__name__)


class OpenAICompatibleProvider(ILLMProvider):
    def __init__(
        self,
        *,
        name: str,
        base_url: str | None,
        model: str,
        api_key: str | None,
        supports_json_schema: bool = True,
        repetition_parameter: str | None = None,
        extra_body: dict[str, Any] | None = None,
        streams: bool = False,
    ):
        """`extra_body`: server-specific fields sent with every request (llama.cpp's `cache_prompt`).
        `streams`: read answers without tools as streams (see `_streamed`)."""
        self.name = name
        self.model = model
        self.base_url = base_url
        # the key and any credentials in the URL are masked in every message, log and audit row
        self._secrets = (api_key or "", *url_secrets(base_url))
        register_secrets(*self._secrets)
        self.supports_json_schema = supports_json_schema
        self._repetition_parameter = repetition_parameter
        self._extra_body = dict(extra_body or {})
        self._streams = streams
        # imported here, not with the module: the SDK costs ~1.5 s of start-up that a command calling
        # no model (most of them) never pays
        import openai

        # max_retries=0: retries and fail-over are the router's job, with its own backoff.
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed", max_retries=0)

    def complete(self, request: CompletionRequest) -> CompletionResponse:
        kwargs = self._request_body(request)
        with self._mapped_errors(request):
            if self._streams and not request.tools:
                return self._streamed(kwargs, request)
            completion = self._create(kwargs)
        if not completion.choices:
            raise LLMTransientError(f"{self.name} returned no choices")
        choice = completion.choices[0]
        return CompletionResponse(
            text=choice.message.content or "",
            tool_calls=[sdk_tool_call(c) for c in choice.message.tool_calls or []] if request.tools else [],
            finish_reason=choice.finish_reason,
            usage=token_usage(completion),
            model=self.model,
            provider=self.name,
        )

    def _request_body(self, request: CompletionRequest) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [openai_message(m) for m in request.messages],
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "timeout": request.timeout_seconds,
        }
        if request.seed is not None:
            kwargs["seed"] = request.seed
        extra_body = dict(self._extra_body)
        if request.repetition_penalty and self._repetition_parameter:
            # a server-specific sampler (llama.cpp's DRY) goes in the request body; remote APIs
            # rarely loop, and their frequency_penalty would also punish JSON's quotes
            extra_body[self._repetition_parameter] = request.repetition_penalty
        if extra_body:
            kwargs["extra_body"] = extra_body
        if request.tools:
            kwargs["tools"] = [
                {"type": "function", "function": t.model_dump(include={"name", "description", "parameters"})}
                for t in request.tools
            ]
        if request.json_schema is not None:
            if self.supports_json_schema:
                kwargs["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": request.schema_name[:64], "schema": request.json_schema},
                }
            else:
                kwargs["response_format"] = {"type": "json_object"}
        return kwargs

    @contextmanager
    def _mapped_errors(self, request: CompletionRequest) -> Iterator[None]:
        """SDK and transport errors -> transient (retry, fail over) or permanent."""
        import openai  # loaded by __init__ already

        try:
            yield
        except openai.APITimeoutError as exc:
            raise LLMTimeoutError(f"{self.name} did not answer within {request.timeout_seconds:g} s") from exc
        except openai.APIConnectionError as exc:
            where = redact_url(self.base_url or "the default OpenAI URL")
            raise LLMTransientError(
                f"cannot reach {self.name} at {where} ({self._redact(str(exc))}); "
                "check its base_url and that it is up"
            ) from exc
        except openai.AuthenticationError as exc:
            raise LLMProviderError(
                f"{self.name} rejected the API key (401); check the key's environment variable"
            ) from exc
        except openai.RateLimitError as exc:
            hint = retry_after_seconds(exc.response.headers)
            asked = f"; it asks to retry in {hint:g} s" if hint is not None else ""
            raise LLMTransientError(f"{self.name} is rate limiting (429){asked}", retry_after=hint) from exc
        except openai.APIStatusError as exc:
            if exc.status_code >= 500 or exc.status_code == 408:
                raise LLMTransientError(
                    f"{self.name} answered {exc.status_code}",
                    retry_after=retry_after_seconds(exc.response.headers),
                ) from exc
            raise LLMProviderError(
                f"{self.name} refused the request ({exc.status_code}): {self._redact(exc.message)}"
            ) from exc
        except (openai.APIError, httpx.HTTPError) as exc:  # an error event or a lost connection mid-stream
            raise LLMTransientError(f"{self.name}'s answer broke off ({self._redact(str(exc))})") from exc

    def _create(self, kwargs: dict[str, Any]) -> Any:
        """The SDK call; inside a job, on a connection of its own that a cancel of the job cuts
        (the read ends at once and the server stops generating), outside one on the shared pool."""
        if current_token() is None:
            return self._client.chat.completions.create(**kwargs)
        http_client, connections = abortable_client(self.base_url)
        try:
            with cancel_hook(connections.abort):
                return self._client.with_options(http_client=http_client).chat.completions.create(**kwargs)
        finally:
            http_client.close()

    def _streamed(self, kwargs: dict[str, Any], request: CompletionRequest) -> CompletionResponse:
        """The answer read as a stream of chunks (no tools: their deltas are not gathered here).

        llama.cpp notices a client gone only when a write to it fails: a non-streamed request cut
        by a cancel can keep its slot generating for the rest of its answer, a stream stops at the
        next token. The timeout stays the whole answer's, as for one response (the SDK's applies
        to each read of the stream)."""
        deadline = time.monotonic() + request.timeout_seconds
        if current_token() is None:
            return self._read_stream(self._client, kwargs, deadline, request)
        http_client, connections = abortable_client(self.base_url)
        try:
            with cancel_hook(connections.abort):
                client = self._client.with_options(http_client=http_client)
                return self._read_stream(client, kwargs, deadline, request)
        finally:
            http_client.close()

    def _read_stream(
        self, client: openai.OpenAI, kwargs: dict[str, Any], deadline: float, request: CompletionRequest
    ) -> CompletionResponse:
        parts: list[str] = []
        finish: str | None = None
        usage: Any = None
        timings: Any = None
        stream_kwargs = {**kwargs, "stream": True, "stream_options": {"include_usage": True}}
        with client.chat.completions.create(**stream_kwargs) as stream:
            for chunk in stream:
                if time.monotonic() > deadline:
                    raise LLMTimeoutError(f"{self.name} did not answer within {request.timeout_seconds:g} s")
                for choice in chunk.choices:
                    parts.append(choice.delta.content or "")
                    finish = choice.finish_reason or finish
                usage = chunk.usage or usage
                timings = (chunk.model_extra or {}).get("timings", timings)
        if finish is None:
            raise LLMTransientError(f"{self.name}'s answer stopped before its end")
        return CompletionResponse(
            text="".join(parts),
            tool_calls=[],
            finish_reason=finish,
            usage=usage_of(usage, timings),
            model=self.model,
            provider=self.name,
        )

    def close(self) -> None:
        self._client.close()

    def _redact(self, text: str) -> str:
        return redact_text(text, self._secrets)


def token_usage(completion: Any) -> TokenUsage:
    """The call's tokens, with how much of the prompt was evaluated and how much came from a cache.

    llama.cpp's server adds `timings` to its answer (`prompt_n`: prompt tokens evaluated,
    `cache_n`: reused from the slot's KV cache), which the SDK keeps as an extra field. Other
    OpenAI-compatible APIs may report `usage.prompt_tokens_details.cached_tokens`: the rest of the
    prompt was evaluated. Neither: both stay None (unknown, not zero).
    """
    timings = (getattr(completion, "model_extra", None) or {}).get("timings")
    return usage_of(getattr(completion, "usage", None), timings)


def usage_of(usage: Any, timings: Any) -> TokenUsage:
    """`token_usage` from its two parts, which a stream sends in its last chunk."""
    prompt = _count(getattr(usage, "prompt_tokens", None)) or 0
    evaluated, cached = _cache_counts(timings, usage, prompt)
    return TokenUsage(
        prompt_tokens=prompt,
        completion_tokens=_count(getattr(usage, "completion_tokens", None)) or 0,
        prompt_tokens_evaluated=evaluated,
        prompt_tokens_cached=cached,
    )


def _cache_counts(timings: Any, usage: Any, prompt: int) -> tuple[int | None, int | None]:
    """(evaluated, cached) prompt tokens: llama.cpp's timings first, else the API's cached_tokens."""
    if isinstance(timings, dict) and _count(timings.get("prompt_n")) is not None:
        return _count(timings.get("prompt_n")), _count(timings.get("cache_n")) or 0
    cached = _count(getattr(getattr(usage, "prompt_tokens_details", None), "cached_tokens", None))
    if cached is None:
        return None, None
    return max(prompt - cached, 0), cached


def _count(value: Any) -> int | None:
    """A reported token count, or None when the field is missing or not a number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return max(int(value), 0)


def openai_message(message: ChatMessage) -> dict[str, Any]:
    """A chat turn in the OpenAI wire format (assistant tool calls carry JSON-text arguments)."""
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id or "", "content": message.content}
    wire: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        wire["content"] = message.content or None
        wire["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)},
            }
            for c in message.tool_calls
        ]
    return wire


def sdk_tool_call(call: Any) -> ToolCall:
    """An SDK tool call -> ToolCall; arguments that are not a JSON object become `error`."""
    function = getattr(call, "function", None)
    name = str(getattr(function, "name", "") or "")
    raw = getattr(function, "arguments", None) or "{}"
    call_id = str(getattr(call, "id", "") or f"call_{name}")
    try:
        arguments = json.loads(raw)
    except ValueError as exc:
        return ToolCall(id=call_id, name=name, error=f"arguments are not valid JSON ({exc.msg}): {raw[:200]}")
    if not isinstance(arguments, dict):
        return ToolCall(id=call_id, name=name, error=f"arguments must be a JSON object, got: {raw[:200]}")
    return ToolCall(id=call_id, name=name, arguments=arguments)
