"""Composition root of the LLM platform: settings -> providers -> routes -> LLMService."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence

from stockdesk.llm_platform.application.budget import TokenBudget
from stockdesk.llm_platform.application.llm_service import LLMService, LLMServiceOptions, ProviderRoute
from stockdesk.llm_platform.domain.ports import ILLMProvider, IRateLimiter
from stockdesk.llm_platform.domain.rate_limits import ProviderLimits
from stockdesk.llm_platform.infrastructure.embedded.model_files import (
    ModelFileStatus,
    ProgressCallback,
    ensure_model_file,
    model_file_status,
)
from stockdesk.llm_platform.infrastructure.embedded.provider import EmbeddedProvider
from stockdesk.llm_platform.infrastructure.embedded.server import EmbeddedServer, ModelServer
from stockdesk.llm_platform.infrastructure.limits.in_process import InProcessRateLimiter
from stockdesk.llm_platform.infrastructure.openai_compatible import OpenAICompatibleProvider
from stockdesk.llm_platform.infrastructure.persistence.repositories import SqlLLMStore
from stockdesk.shared.config import LLMAliasConfig, Settings
from stockdesk.shared.db import Database
from stockdesk.shared.errors import ConfigurationError


def embedded_server_factory(
    settings: Settings, *, model_progress: ProgressCallback | None = None
) -> Callable[[], EmbeddedServer]:
    """Builds the embedded model's server (not started yet); picklable without a progress callback."""
    return functools.partial(
        EmbeddedServer,
        functools.partial(ensure_model_file, settings.models_dir, progress=model_progress),
        n_ctx=settings.local_n_ctx,
        threads=settings.local_threads,
        slots=settings.local_parallel_slots,
    )


def embedded_model_status(settings: Settings) -> ModelFileStatus:
    """The embedded model's file in the configured models folder (read, never assembled here)."""
    return model_file_status(settings.models_dir)


def alias_problem(alias: LLMAliasConfig) -> str | None:
    """Why `alias` cannot be built as configured (no model, its key's variable unset, a test-only
    provider), or None; `build_provider` raises it and `stockdesk doctor` reports it."""
    if alias.provider == "embedded":
        return None
    if alias.provider == "openai-compatible":
        if not alias.model:
            return (
                f"LLM alias '{alias.name}' has no model: set STOCKDESK_LLM_MODEL or `model` in stockdesk.toml"
            )
        if alias.api_key_env and not os.environ.get(alias.api_key_env):
            return (
                f"LLM alias '{alias.name}' needs an API key in ${alias.api_key_env}, which is not set "
                "(export it, or set api_key_env empty for a server without keys)"
            )
        return None
    return f"LLM alias '{alias.name}': provider '{alias.provider}' is for tests and cannot be configured"


def build_provider(
    alias: LLMAliasConfig,
    settings: Settings,
    *,
    model_progress: ProgressCallback | None = None,
    distributed: bool = False,
) -> ILLMProvider:
    """`distributed`: a Ray worker, whose embedded model is its node's (one server per node)."""
    problem = alias_problem(alias)
    if problem is not None:
        raise ConfigurationError(problem)
    if alias.provider == "embedded":
        server: ModelServer
        if distributed:
            from stockdesk.llm_platform.infrastructure.embedded.node_server import ActorModelServer

            server = ActorModelServer(embedded_server_factory(settings), slots=settings.local_parallel_slots)
        else:
            server = embedded_server_factory(settings, model_progress=model_progress)()
        return EmbeddedProvider(server, slots=settings.local_parallel_slots, name=alias.name)
    return OpenAICompatibleProvider(
        name=alias.name,
        base_url=alias.base_url,
        model=alias.model,
        api_key=os.environ.get(alias.api_key_env) if alias.api_key_env else None,
        supports_json_schema=alias.supports_json_schema,
    )


def build_rate_limiter(aliases: Sequence[LLMAliasConfig], *, distributed: bool) -> IRateLimiter | None:
    """The aliases' configured limits: across Ray workers when `distributed`, else in this process."""
    limits = {
        a.name: ProviderLimits(a.max_concurrency, a.requests_per_minute, a.tokens_per_minute) for a in aliases
    }
    if not any(lim.limited for lim in limits.values()):
        return None
    if distributed:
        from stockdesk.llm_platform.infrastructure.limits.ray_limiter import RayRateLimiter

        return RayRateLimiter(limits)
    return InProcessRateLimiter(limits)


def _ray_started() -> bool:
    import ray

    return ray.is_initialized()


def build_llm_service(
    settings: Settings,
    database: Database | None,
    *,
    model_progress: ProgressCallback | None = None,
    extra_routes: list[ProviderRoute] | None = None,
    distributed: bool = False,
) -> LLMService:
    """`distributed=True` in a Ray worker: limits shared by every worker, the node's embedded model.

    Without a started Ray it falls back to this process's own limiter and model server.
    """
    distributed = distributed and _ray_started()
    aliases = settings.resolved_aliases()
    routes = [
        ProviderRoute(
            alias=a.name,
            provider=build_provider(a, settings, model_progress=model_progress, distributed=distributed),
            priority=a.priority,
            tags=tuple(a.tags),
            timeout_seconds=a.timeout_seconds,
            input_price_per_million=a.input_price_per_million or 0.0,
            output_price_per_million=a.output_price_per_million or 0.0,
            output_style=settings.llm_output_style or a.style(),
        )
        for a in aliases
    ]
    routes.extend(extra_routes or [])
    store = SqlLLMStore(database) if database else None
    return LLMService(
        routes,
        audit=store,
        cache=store,
        budget=TokenBudget(settings.max_tokens_per_run),
        options=LLMServiceOptions(
            default_timeout_seconds=settings.llm_timeout_seconds,
            max_retries=settings.llm_max_retries,
            max_output_tokens=settings.llm_max_output_tokens,
            cache_enabled=settings.llm_cache,
            seed=settings.llm_seed,
            repetition_penalty=settings.llm_repetition_penalty,
        ),
        limiter=build_rate_limiter(aliases, distributed=distributed),
    )


ServiceFactory = Callable[[], LLMService]
