"""Provider limits hold across Ray workers: every worker asks one named actor for its grants.

Each test uses its own actor name and kills the actor after, as detached actors outlive a test.
The grant log is the actor's own (one clock for all workers); the chat server's count of
requests in flight at once is the provider's view of the same thing.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from stockdesk.llm_platform.application.llm_service import LLMService, LLMServiceOptions, ProviderRoute
from stockdesk.llm_platform.container import build_llm_service
from stockdesk.llm_platform.domain.rate_limits import ProviderLimits
from stockdesk.llm_platform.infrastructure.limits.ray_limiter import LIMITS_ACTOR, RayRateLimiter
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import LLMAliasConfig, Settings
from tests.llm_platform.chat_server import ChatServer
from tests.llm_platform.test_rate_limits import assert_no_overlap

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.usefixtures("ray_local")

WORKERS = 4


@pytest.fixture
def actor_name() -> Iterator[str]:
    name = f"test-llm-limits-{uuid.uuid4().hex[:8]}"
    yield name
    _kill(name)


def _kill(name: str) -> None:
    with contextlib.suppress(ValueError):  # never created
        ray.kill(ray.get_actor(name))


@ray.remote(num_cpus=1, max_retries=0)
def scripted_calls(actor_name: str, limits: dict[str, ProviderLimits], window: float, calls: int) -> int:
    """One worker: its own LLMService over a scripted provider, limited through the shared actor."""
    limiter = RayRateLimiter(limits, actor_name=actor_name, window_seconds=window)
    provider = ScriptedProvider(["ok"], latency_seconds=0.05)
    service = LLMService(
        [ProviderRoute("remote", provider)], limiter=limiter, options=LLMServiceOptions(backoff_seconds=0.0)
    )
    for _ in range(calls):
        service.generate("p")
    return provider.calls


@ray.remote(num_cpus=1, max_retries=0)
def configured_calls(settings: Settings, calls: int) -> list[str]:
    """One worker as the job engine runs it: the service from settings, `distributed=True`."""
    service = build_llm_service(settings, None, distributed=True)
    try:
        return [service.generate("p").alias for _ in range(calls)]
    finally:
        service.close()


def test_max_concurrency_one_holds_across_four_workers(actor_name: str) -> None:
    limits = {"remote": ProviderLimits(max_concurrency=1)}
    done = ray.get([scripted_calls.remote(actor_name, limits, 60.0, 3) for _ in range(WORKERS)])
    assert done == [3] * WORKERS
    grants = RayRateLimiter(limits, actor_name=actor_name).grant_log()
    assert len(grants) == 12
    assert_no_overlap(grants)
    assert {g.tokens for g in grants} == {150}  # released with the scripted usage, 100 + 50


def test_requests_per_window_hold_across_four_workers(actor_name: str) -> None:
    window, per_window = 1.0, 2
    limits = {"remote": ProviderLimits(requests_per_minute=per_window)}
    ray.get([scripted_calls.remote(actor_name, limits, window, 2) for _ in range(WORKERS)])
    starts = sorted(g.granted_at for g in RayRateLimiter(limits, actor_name=actor_name).grant_log())
    assert len(starts) == 8
    for start in starts:
        assert sum(1 for s in starts if start <= s < start + window) <= per_window
    # grants k and k+2 are at least a window apart: 8 grants span at least (8 / 2 - 1) windows
    assert starts[-1] - starts[0] >= 3 * window


def test_configured_limit_holds_at_the_provider_through_build_llm_service(settings: Settings) -> None:
    server = ChatServer(latency_seconds=0.1).start()
    configured = settings.model_copy(
        update={
            "llm_aliases": [
                LLMAliasConfig(name="remote", base_url=server.base_url, model="m", max_concurrency=1)
            ]
        }
    )
    try:
        aliases = ray.get([configured_calls.remote(configured, 3) for _ in range(WORKERS)])
    finally:
        server.stop()
        grants: list[Any] = RayRateLimiter({"remote": ProviderLimits(max_concurrency=1)}).grant_log()
        _kill(LIMITS_ACTOR)
    assert aliases == [["remote"] * 3] * WORKERS
    assert len(server.state.arrivals) == 12 and server.state.max_in_flight == 1
    mine = [g for g in grants if g.alias == "remote"][-12:]
    assert len(mine) == 12 and {g.tokens for g in mine} == {1200}  # the server's usage: 1000 + 200
