"""LLMService: the one way any context talks to a language model.

Routing (aliases, priorities, tags), retries with backoff, fail-over, rate limits, structured
output with one repair attempt and the response cache live here; what a call leaves behind (the
audit trail, the token budget, usage meters) is kept by `CallRecords` (call_records.py) behind the
same facade, so that a caller only says what it wants:
`generate(prompt, system_message, response_model=Verdict)`.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import logging
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    retry_if_not_exception_type,
    stop_after_attempt,
    wait_exponential,
)

from stockdesk.llm_platform.application.budget import TokenBudget
from stockdesk.llm_platform.application.call_records import CallRecords
from stockdesk.llm_platform.application.structured_output import (
    RAW_LOG_LIMIT,
    bounded_schema,
    extract_json_text,
    parse_structured,
    repair_prompt,
)
from stockdesk.llm_platform.application.usage_meter import UsageMeter
from stockdesk.llm_platform.domain.dtos import (
    AuditedCall,
    ChatMessage,
    CompletionRequest,
    CompletionResponse,
    LLMResult,
    TokenUsage,
    ToolCallRecord,
    ToolSpec,
)
from stockdesk.llm_platform.domain.exceptions import (
    LLMOutputParseError,
    LLMProviderError,
    LLMTimeoutError,
    LLMTransientError,
    UnknownAliasError,
)
from stockdesk.llm_platform.domain.ports import (
    CacheStats,
    ILLMProvider,
    ILLMStore,
    IRateLimiter,
)
from stockdesk.llm_platform.domain.rate_limits import LimitGrant, estimate_tokens
from stockdesk.shared.errors import ConfigurationError
from stockdesk.shared.run_scope import active_run_id as shared_run_id
from stockdesk.shared.run_scope import run_scope as shared_run_scope
from stockdesk.shared.tasks.cancel import check_cancelled, sleep_or_stop

logger = logging.getLogger(__name__)

# A limiter grant outlives the call's own timeout by this much before it frees itself.
LEASE_MARGIN_SECONDS = 60.0

_force_cache: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "stockdesk_llm_force_cache", default=False
)

__all__ = [
    "CacheStats",
    "LLMService",
    "LLMServiceOptions",
    "ProviderRoute",
    "UsageMeter",
    "active_run_id",
]


def active_run_id() -> str | None:
    """The run set by `LLMService.run_scope` (shared.run_scope), for other audits of the same run."""
    return shared_run_id()


def _log_invalid(caller: str | None, what: str, exc: LLMOutputParseError) -> None:
    """Log a structured-output failure with the raw output, truncated."""
    errors = "; ".join(exc.errors)[:300]
    logger.warning("%s: %s (%s); raw=%r", caller or "llm", what, errors, exc.raw_output[:RAW_LOG_LIMIT])


def _where(route: ProviderRoute) -> tuple[str, str, str]:
    """(alias, provider, model) of a route, for an audit row of a failed call."""
    return route.alias, route.provider.name, route.provider.model


def _prompt_hash(request: CompletionRequest) -> str:
    """Audit rows carry a hash of the messages, never the prompt text."""
    material = json.dumps([m.key() for m in request.messages], ensure_ascii=False)
    return hashlib.sha256(material.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class ProviderRoute:
    """A named provider the router may pick."""

    alias: str
    provider: ILLMProvider
    priority: int = 100
    tags: tuple[str, ...] = ()
    timeout_seconds: float | None = None
    input_price_per_million: float = 0.0  # USD per million prompt tokens
    output_price_per_million: float = 0.0  # USD per million completion tokens
    output_style: str = "prose"  # "choices": callers ask it for card ids only (shared.config)

    def cost(self, usage: TokenUsage) -> float:
        """What a call with this usage cost on this alias, in USD."""
        return (
            usage.prompt_tokens * self.input_price_per_million
            + usage.completion_tokens * self.output_price_per_million
        ) / 1_000_000


@dataclass
class LLMServiceOptions:
    default_timeout_seconds: float = 240.0
    max_retries: int = 2
    max_output_tokens: int = 1024
    backoff_seconds: float = 1.0
    cache_enabled: bool = False
    seed: int | None = None  # every call's sampling seed unless the caller gives one
    repetition_penalty: float | None = None
    default_tags: tuple[str, ...] = field(default_factory=tuple)
    retry_after_cap_seconds: float = 120.0  # a provider's Retry-After longer than this is cut to it


class LLMService:
    def __init__(
        self,
        routes: Sequence[ProviderRoute],
        *,
        audit: ILLMStore | None = None,
        cache: ILLMStore | None = None,
        budget: TokenBudget | None = None,
        options: LLMServiceOptions | None = None,
        limiter: IRateLimiter | None = None,
    ):
        """`limiter` holds each provider call to its alias's limits (shared across workers with Ray).
        `audit` records every call, `cache` answers repeated ones: the same store when there is a
        database; None leaves that part out."""
        if not routes:
            raise LLMProviderError("no LLM provider is configured")
        self._routes = sorted(routes, key=lambda r: r.priority)
        self._records = CallRecords(audit, budget)
        self._cache = cache
        self._options = options or LLMServiceOptions()
        self._limiter = limiter

    # ---- runs -------------------------------------------------------------------------------
    @contextmanager
    def run_scope(self, run_id: str) -> Iterator[str]:
        """Attribute every call inside the block to `run_id` (audit rows, token budget)."""
        with shared_run_scope(run_id):
            yield run_id

    @contextmanager
    def cache_scope(self) -> Iterator[None]:
        """Use the response cache for every call inside the block, whatever STOCKDESK_LLM_CACHE says.

        A repeated identical call (same provider, model, messages, schema, temperature, seed and
        repetition penalty) is answered from the database without calling the provider. Like
        `run_scope` it is a context variable: it follows `asyncio.to_thread` and threads started in
        a copied context (`contextvars.copy_context().run`), not bare `threading.Thread`s.
        """
        if self._cache is None:
            logger.warning("no response cache is configured (no database): calls will not be cached")
        token = _force_cache.set(True)
        try:
            yield
        finally:
            _force_cache.reset(token)

    @contextmanager
    def usage_scope(
        self, max_tokens: int | None = None, *, max_cost_usd: float | None = None
    ) -> Iterator[UsageMeter]:
        """Count the provider calls, cache hits, tokens and cost of every call inside the block.

        With `max_tokens` (or `max_cost_usd`), a call inside the block is refused
        (TokenBudgetExceededError) once the block has spent that much: a budget for one REST
        request and the job it starts.

        Scopes nest: each meter counts what happens inside its own block. Context-variable based,
        so it follows the same threads and tasks as `cache_scope`.
        """
        with self._records.usage_scope(max_tokens, max_cost_usd=max_cost_usd) as meter:
            yield meter

    @property
    def cache_enabled(self) -> bool:
        """Whether calls here and now use the response cache (the setting, or a `cache_scope`)."""
        return self._cache is not None and (self._options.cache_enabled or _force_cache.get())

    def cache_stats(self) -> CacheStats:
        return self._require_cache().stats()

    def cache_clear(self) -> int:
        """Delete every cached response; return how many were deleted."""
        return self._require_cache().clear()

    def recent_calls(self, limit: int = 20) -> list[AuditedCall]:
        """The newest audited calls, newest first, with the tool calls each asked for."""
        return self._records.recent(limit)

    def _require_cache(self) -> ILLMStore:
        if self._cache is None:
            raise ConfigurationError("the LLM response cache needs a database, and none is configured")
        return self._cache

    @property
    def current_run_id(self) -> str:
        return self._records.current_run_id

    def tokens_used(self, run_id: str | None = None) -> int:
        return self._records.tokens_used(run_id)

    def calls_made(self, run_id: str | None = None) -> int:
        return self._records.calls_made(run_id)

    def cost_of(self, run_id: str) -> float | None:
        """USD the run's calls cost by the aliases' prices; None when no alias is priced (unknown,
        not free)."""
        priced = any(r.input_price_per_million or r.output_price_per_million for r in self._routes)
        return self._records.cost(run_id) if priced else None

    @property
    def seed(self) -> int | None:
        return self._options.seed

    def sampling_settings(self) -> dict[str, Any]:
        """What a session records so that its run can be reproduced."""
        return {
            "seed": self._options.seed,
            "repetition_penalty": self._options.repetition_penalty,
            "models": [f"{r.alias}={r.provider.name}:{r.provider.model}" for r in self._routes],
        }

    @property
    def aliases(self) -> list[str]:
        return [r.alias for r in self._routes]

    def output_style(self) -> str:
        """The style of the route tried first: how the debate and the judge ask ("choices" or "prose")."""
        return min(self._routes, key=lambda r: r.priority).output_style if self._routes else "prose"

    def close(self) -> None:
        for route in self._routes:
            route.provider.close()

    # ---- the one entry point ------------------------------------------------------------------
    def generate(
        self,
        prompt: str,
        system_message: str | None = None,
        *,
        temperature: float = 0.2,
        response_model: type[BaseModel] | None = None,
        json_schema: dict[str, Any] | None = None,
        alias: str | None = None,
        tags: Sequence[str] = (),
        caller: str | None = None,
        max_tokens: int | None = None,
        timeout_seconds: float | None = None,
        seed: int | None = None,
    ) -> LLMResult:
        """Send one prompt; with `response_model` (or `json_schema`) return a validated object.

        Raises LLMOutputParseError when the answer stays invalid after one repair attempt,
        LLMTransientError when every eligible provider failed, UnknownAliasError for a bad alias.
        """
        messages = [ChatMessage(role="user", content=prompt)]
        if system_message:
            messages.insert(0, ChatMessage(role="system", content=system_message))
        return self.chat(
            messages,
            temperature=temperature,
            response_model=response_model,
            json_schema=json_schema,
            alias=alias,
            tags=tags,
            caller=caller,
            max_tokens=max_tokens,
            timeout_seconds=timeout_seconds,
            seed=seed,
        )

    def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolSpec] = (),
        temperature: float = 0.2,
        response_model: type[BaseModel] | None = None,
        json_schema: dict[str, Any] | None = None,
        alias: str | None = None,
        tags: Sequence[str] = (),
        caller: str | None = None,
        max_tokens: int | None = None,
        timeout_seconds: float | None = None,
        seed: int | None = None,
    ) -> LLMResult:
        """`generate` over a whole conversation, optionally offering `tools` to call.

        An answer with tool calls comes back as they are (`tool_calls`, nothing parsed): running
        them is the caller's job (see tool_loop). Offered tools leave the model free to call
        them, so the schema is not enforced on that call; a final answer that does not validate
        gets the usual repair, with the schema enforced and no tools.
        """
        routes = self._select(alias, tags)
        schema = bounded_schema(response_model or json_schema) if (response_model or json_schema) else None
        request = CompletionRequest(
            messages=list(messages),
            temperature=temperature,
            max_tokens=max_tokens or self._options.max_output_tokens,
            seed=seed if seed is not None else self._options.seed,
            repetition_penalty=self._options.repetition_penalty,
            json_schema=None if tools else schema,
            schema_name=response_model.__name__ if response_model else "response",
            timeout_seconds=timeout_seconds or self._options.default_timeout_seconds,
            tools=list(tools),
        )
        started = time.perf_counter()
        response, route, cached, call_id = self._complete(routes, request, caller, tags)
        usage, attempts = response.usage, 1
        if schema is None or response.tool_calls:
            return self._result(response, route, None, usage, started, attempts, cached, call_id)
        try:
            parsed = self._parse(response, response_model)
        except LLMOutputParseError as first:
            _log_invalid(caller, f"invalid output from {route.alias}; repairing", first)
            repair = request.model_copy(
                update={
                    "messages": [
                        *request.messages,
                        ChatMessage(role="assistant", content=response.text),
                        ChatMessage(role="user", content=repair_prompt(first.errors)),
                    ],
                    "json_schema": schema,
                    "tools": [],
                }
            )
            response, route, cached, call_id = self._complete([route], repair, caller, tags)
            usage, attempts = usage + response.usage, 2
            try:
                parsed = self._parse(response, response_model)
            except LLMOutputParseError as second:
                _log_invalid(caller, "output still invalid after repair", second)
                self._audit_parse_failure(route, repair, caller, tags, second)
                raise
        return self._result(response, route, parsed, usage, started, attempts, cached, call_id)

    def record_tool_calls(self, records: Sequence[ToolCallRecord]) -> None:
        """Audit the tool calls a caller ran for a model (see `LLMResult.call_id`)."""
        self._records.tool_calls(records)

    # ---- internals ----------------------------------------------------------------------------
    def _select(self, alias: str | None, tags: Sequence[str]) -> list[ProviderRoute]:
        if alias is not None:
            chosen = [r for r in self._routes if r.alias == alias]
            if not chosen:
                raise UnknownAliasError(
                    f"unknown LLM alias '{alias}'; configured aliases: {', '.join(self.aliases)}"
                )
            return chosen
        wanted = set(tags)
        chosen = [r for r in self._routes if wanted <= set(r.tags)] if wanted else list(self._routes)
        return chosen or list(self._routes)

    @staticmethod
    def _parse(response: CompletionResponse, response_model: type[BaseModel] | None) -> Any:
        if response_model is not None:
            return parse_structured(response.text, response_model, finish_reason=response.finish_reason)
        try:
            return json.loads(extract_json_text(response.text))
        except ValueError as exc:
            raise LLMOutputParseError(
                f"model output is not JSON: {exc}", raw_output=response.text, errors=[str(exc)]
            ) from exc

    def _result(
        self,
        response: CompletionResponse,
        route: ProviderRoute,
        parsed: Any,
        usage: TokenUsage,
        started: float,
        attempts: int,
        cached: bool,
        call_id: str | None,
    ) -> LLMResult:
        return LLMResult(
            text=response.text,
            parsed=parsed,
            usage=usage,
            latency_seconds=round(time.perf_counter() - started, 3),
            model=response.model,
            provider=response.provider,
            alias=route.alias,
            attempts=attempts,
            cached=cached,
            finish_reason=response.finish_reason,
            tool_calls=response.tool_calls,
            call_id=call_id,
        )

    def _complete(
        self,
        routes: list[ProviderRoute],
        request: CompletionRequest,
        caller: str | None,
        tags: Sequence[str],
    ) -> tuple[CompletionResponse, ProviderRoute, bool, str]:
        failures: list[str] = []
        for route in routes:
            try:
                response, cached, call_id = self._call_with_retries(route, request, caller, tags)
                return response, route, cached, call_id
            except LLMTransientError as exc:
                failures.append(f"{route.alias}: {exc.message}")
                logger.warning("LLM alias %s failed: %s", route.alias, exc.message)
        raise LLMTransientError("every LLM provider failed: " + " | ".join(failures))

    def _call_with_retries(
        self, route: ProviderRoute, request: CompletionRequest, caller: str | None, tags: Sequence[str]
    ) -> tuple[CompletionResponse, bool, str]:
        if route.timeout_seconds:
            request = request.model_copy(update={"timeout_seconds": route.timeout_seconds})
        retrying = Retrying(
            stop=stop_after_attempt(self._options.max_retries + 1),
            wait=self._retry_wait,
            sleep=sleep_or_stop,  # a cancelled job does not sit out its backoff
            # a timed-out request would time out again: fail over instead of resending it
            retry=retry_if_exception_type(LLMTransientError) & retry_if_not_exception_type(LLMTimeoutError),
            reraise=True,
        )
        for attempt in retrying:
            with attempt:
                return self._call_once(route, request, caller, tags)
        raise AssertionError("unreachable")  # pragma: no cover

    def _retry_wait(self, state: RetryCallState) -> float:
        """Our exponential backoff, or longer when the provider said how long (Retry-After)."""
        backoff = wait_exponential(multiplier=self._options.backoff_seconds, max=30)(state)
        failure = state.outcome.exception() if state.outcome is not None else None
        hint = getattr(failure, "retry_after", None)
        if hint is None:
            return backoff
        return max(backoff, min(float(hint), self._options.retry_after_cap_seconds))

    def _cache_key(self, route: ProviderRoute, request: CompletionRequest) -> str:
        material = {
            "model": f"{route.provider.name}:{route.provider.model}",
            "messages": [m.key() for m in request.messages],
            "schema": request.json_schema,
            "temperature": request.temperature,
            "seed": request.seed,
            "repetition_penalty": request.repetition_penalty,
        }
        if request.tools:
            material["tools"] = [t.model_dump() for t in request.tools]
        return hashlib.sha256(json.dumps(material, sort_keys=True, ensure_ascii=False).encode()).hexdigest()

    def _call_once(
        self, route: ProviderRoute, request: CompletionRequest, caller: str | None, tags: Sequence[str]
    ) -> tuple[CompletionResponse, bool, str]:
        call_id = uuid.uuid4().hex
        run_id, meters = self._records.admit()
        prompt_hash = _prompt_hash(request)
        key = self._cache_key(route, request) if self.cache_enabled else None
        if key is not None and self._cache is not None:
            hit = self._cache.get(key)
            if hit is not None:
                self._records.cache_hit(meters)
                self._records.answered(
                    route.alias, run_id, caller, tags, prompt_hash, hit, 0.0, "cached", call_id
                )
                return hit, True, call_id
        started = time.perf_counter()
        check_cancelled()  # a cancelled job makes no new call
        try:
            grant = self._acquire(route, request)
            started = time.perf_counter()  # the call's latency, not the wait for its grant
            response = self._complete_granted(route, request, grant)
        except (LLMProviderError, LLMTransientError) as exc:
            self._records.failed(meters)
            self._records.errored(
                _where(route), run_id, caller, tags, prompt_hash, exc, time.perf_counter() - started
            )
            # the provider's connection was cut by a cancel of the job: stop, neither retry nor fail over
            check_cancelled()
            raise
        latency = time.perf_counter() - started
        self._records.spent(run_id, meters, response.usage, route.cost(response.usage))
        self._records.answered(
            route.alias, run_id, caller, tags, prompt_hash, response, latency, "ok", call_id
        )
        if key is not None and self._cache is not None and response.finish_reason != "length":
            try:
                self._cache.put(key, response)
            except Exception:  # a cache that cannot be written must never lose the answer
                logger.exception("could not store the LLM response in the cache")
        return response, False, call_id

    def _acquire(self, route: ProviderRoute, request: CompletionRequest) -> LimitGrant | None:
        """Wait until the alias's limits allow this call (ProviderLimitWaitError after too long)."""
        if self._limiter is None:
            return None
        lease = request.timeout_seconds + LEASE_MARGIN_SECONDS
        return self._limiter.acquire(route.alias, estimate_tokens(request), lease_seconds=lease)

    def _complete_granted(
        self, route: ProviderRoute, request: CompletionRequest, grant: LimitGrant | None
    ) -> CompletionResponse:
        """The provider call; its grant goes back with the real usage (or its reservation, on failure)."""
        if self._limiter is None or grant is None:
            return route.provider.complete(request)
        try:
            response = route.provider.complete(request)
        except LLMTransientError as exc:
            self._limiter.release(grant, None)
            if exc.retry_after:  # the provider asks every caller to hold off, not just this one
                pause = min(exc.retry_after, self._options.retry_after_cap_seconds)
                self._limiter.cool_down(route.alias, pause)
            raise
        except BaseException:
            self._limiter.release(grant, None)
            raise
        self._limiter.release(grant, response.usage.total_tokens)
        return response

    def _audit_parse_failure(
        self,
        route: ProviderRoute,
        request: CompletionRequest,
        caller: str | None,
        tags: Sequence[str],
        exc: LLMOutputParseError,
    ) -> None:
        self._records.errored(
            _where(route),
            self.current_run_id,
            caller,
            tags,
            _prompt_hash(request),
            exc,
            0.0,
            status="parse_error",
        )
