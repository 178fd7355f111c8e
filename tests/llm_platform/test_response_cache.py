"""The response cache on demand (`cache_scope`), the usage meter, and cache stats/clear."""

from __future__ import annotations

import asyncio
import contextvars
import json
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Literal

import pytest
from pydantic import BaseModel

from stockdesk.llm_platform.application.llm_service import LLMService, ProviderRoute
from stockdesk.llm_platform.domain.dtos import CompletionRequest, CompletionResponse, TokenUsage
from stockdesk.llm_platform.domain.exceptions import LLMTransientError
from stockdesk.llm_platform.domain.ports import ILLMProvider
from stockdesk.llm_platform.infrastructure.persistence.repositories import SqlLLMStore
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.db import Database
from stockdesk.shared.errors import ConfigurationError
from tests.conftest import scripted_service


class Signal(BaseModel):
    signal: Literal["BULLISH", "BEARISH", "NEUTRAL"]
    confidence: float


BULLISH = json.dumps({"signal": "BULLISH", "confidence": 0.7})
BEARISH = json.dumps({"signal": "BEARISH", "confidence": 0.2})


def response(text: str = "answer", finish_reason: str = "stop") -> CompletionResponse:
    return CompletionResponse(
        text=text,
        finish_reason=finish_reason,
        usage=TokenUsage(prompt_tokens=10, completion_tokens=5),
        model="m",
        provider="p",
    )


# ---- cache_scope --------------------------------------------------------------------------------


def test_inside_cache_scope_an_identical_call_is_replayed_with_the_setting_off(database: Database) -> None:
    provider = ScriptedProvider([BULLISH, BEARISH], tokens_per_call=(120, 30))
    service = scripted_service(provider, database=database)  # STOCKDESK_LLM_CACHE off
    assert not service.cache_enabled
    with service.cache_scope(), service.usage_scope() as meter:
        assert service.cache_enabled
        first = service.generate("same", "sys", response_model=Signal)
        second = service.generate("same", "sys", response_model=Signal)
    assert provider.calls == 1
    assert not first.cached and second.cached
    assert second.parsed == first.parsed == Signal(signal="BULLISH", confidence=0.7)
    assert second.text == first.text
    assert (meter.calls, meter.cache_hits, meter.errors) == (1, 1, 0)
    assert (meter.prompt_tokens, meter.completion_tokens, meter.tokens) == (120, 30, 150)
    assert not service.cache_enabled  # the scope ended


def test_outside_the_scope_with_the_setting_off_nothing_is_cached(database: Database) -> None:
    provider = ScriptedProvider([BULLISH])
    service = scripted_service(provider, database=database)
    service.generate("same")
    service.generate("same")
    assert provider.calls == 2
    with service.cache_scope():
        replay = service.generate("same")  # the calls outside were not stored either
    assert provider.calls == 3 and not replay.cached
    assert service.cache_stats().entries == 1
    service.generate("same")  # out of the scope again: the stored answer is not used
    assert provider.calls == 4


def test_the_setting_alone_still_caches_outside_any_scope(database: Database) -> None:
    provider = ScriptedProvider([BULLISH])
    service = scripted_service(provider, database=database, cache_enabled=True)
    service.generate("same")
    assert service.generate("same").cached and provider.calls == 1


def test_a_different_seed_or_temperature_is_a_miss(database: Database) -> None:
    provider = ScriptedProvider(["a", "b", "c", "d"])
    service = scripted_service(provider, database=database)
    with service.cache_scope(), service.usage_scope() as meter:
        base = service.generate("p", seed=1, temperature=0.0)
        other_seed = service.generate("p", seed=2, temperature=0.0)
        other_temperature = service.generate("p", seed=1, temperature=0.5)
        again = service.generate("p", seed=1, temperature=0.0)
    assert [base.text, other_seed.text, other_temperature.text, again.text] == ["a", "b", "c", "a"]
    assert provider.calls == 3 and again.cached
    assert (meter.calls, meter.cache_hits) == (3, 1)


class _Truncating(ILLMProvider):
    name = "truncating"
    model = "t"

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, request: CompletionRequest) -> CompletionResponse:
        self.calls += 1
        return response("cut off mid-sen", finish_reason="length")


def test_truncated_answers_are_not_cached(database: Database) -> None:
    provider = _Truncating()
    service = LLMService([ProviderRoute("t", provider)], cache=SqlLLMStore(database))
    with service.cache_scope():
        service.generate("p")
        service.generate("p")
    assert provider.calls == 2
    assert service.cache_stats().entries == 0


def test_failed_attempts_are_metered_as_errors_and_not_cached(database: Database) -> None:
    provider = ScriptedProvider([LLMTransientError("503"), "fine"], tokens_per_call=(7, 3))
    service = scripted_service(provider, database=database, max_retries=1)
    with service.cache_scope(), service.usage_scope() as meter:
        first = service.generate("p")
        second = service.generate("p")
    assert first.text == second.text == "fine" and second.cached
    assert provider.calls == 2  # the failure and the retry; the repeat was a hit
    assert meter.as_dict() == {
        "calls": 1,
        "cache_hits": 1,
        "errors": 1,
        "prompt_tokens": 7,
        "completion_tokens": 3,
        "tokens": 10,
        "cost_usd": 0.0,  # the scripted alias has no prices
    }


def test_cache_scope_follows_asyncio_to_thread(database: Database) -> None:
    provider = ScriptedProvider(["x"])
    service = scripted_service(provider, database=database)

    async def twice() -> list[bool]:
        with service.cache_scope():
            first = await asyncio.to_thread(service.generate, "p")
            second = await asyncio.to_thread(service.generate, "p")
        return [first.cached, second.cached]

    assert asyncio.run(twice()) == [False, True]
    assert provider.calls == 1


# ---- usage meter --------------------------------------------------------------------------------


def test_the_meter_counts_calls_made_in_asyncio_to_thread() -> None:
    provider = ScriptedProvider(["x"], latency_seconds=0.02, tokens_per_call=(100, 50))
    service = scripted_service(provider)

    async def run() -> dict[str, int]:
        with service.usage_scope() as meter:
            await asyncio.gather(*(asyncio.to_thread(service.generate, f"p{i}") for i in range(6)))
        return meter.as_dict()

    counted = asyncio.run(run())
    assert counted["calls"] == 6 and counted["cache_hits"] == 0
    assert (counted["prompt_tokens"], counted["completion_tokens"], counted["tokens"]) == (600, 300, 900)


def test_the_meter_is_exact_under_many_parallel_threads() -> None:
    provider = ScriptedProvider(["x"], tokens_per_call=(3, 2))
    service = scripted_service(provider)
    with service.usage_scope() as meter, ThreadPoolExecutor(max_workers=16) as pool:
        futures = [pool.submit(contextvars.copy_context().run, service.generate, f"p{i}") for i in range(200)]
        for future in futures:
            future.result()
    assert (meter.calls, meter.tokens) == (200, 1000)


def test_nested_scopes_each_count_their_own_block() -> None:
    provider = ScriptedProvider(["x"], tokens_per_call=(10, 10))
    service = scripted_service(provider)
    service.generate("before any scope")
    with service.usage_scope() as outer:
        service.generate("a")
        with service.usage_scope() as inner:
            service.generate("b")
            service.generate("c")
        service.generate("d")
    service.generate("after")
    assert (outer.calls, outer.tokens) == (4, 80)
    assert (inner.calls, inner.tokens) == (2, 40)


def test_the_meter_leaves_calls_outside_the_scope_uncounted() -> None:
    service = scripted_service(ScriptedProvider(["x"]))
    with service.usage_scope() as meter:
        pass
    service.generate("later")
    assert meter.calls == 0 and meter.tokens == 0


# ---- stats and clear ----------------------------------------------------------------------------


def test_stats_count_entries_size_and_age_and_clear_removes_them(database: Database) -> None:
    cache = SqlLLMStore(database)
    empty = cache.stats()
    assert (empty.entries, empty.size_bytes, empty.oldest, empty.newest) == (0, 0, None, None)
    before = datetime.now(UTC)
    cache.put("k1", response("short"))
    time.sleep(0.01)
    cache.put("k2", response("长" * 5000))
    cache.put("k2", response("长" * 5000))  # same key again: still one entry
    stats = cache.stats()
    assert stats.entries == 2
    assert stats.size_bytes >= 5000  # the long answer alone, however it is encoded
    assert stats.oldest is not None and stats.newest is not None
    assert stats.oldest.tzinfo is not None
    assert before.replace(microsecond=0) <= stats.oldest.replace(microsecond=0)
    assert stats.oldest < stats.newest  # k1 was written first, k2 last
    assert cache.get("k2") == response("长" * 5000)

    assert cache.clear() == 2
    assert cache.stats().entries == 0 and cache.get("k1") is None
    assert cache.clear() == 0


def test_the_service_passes_stats_and_clear_through(database: Database) -> None:
    provider = ScriptedProvider(["one", "two"])
    service = scripted_service(provider, database=database)
    with service.cache_scope():
        service.generate("a")
        service.generate("b")
    assert service.cache_stats().entries == 2
    assert service.cache_clear() == 2
    with service.cache_scope():
        service.generate("a")  # cleared: asked again
    assert provider.calls == 3


def test_stats_without_a_database_is_a_configuration_error() -> None:
    service = scripted_service(ScriptedProvider(["x"]))
    assert not service.cache_enabled
    with pytest.raises(ConfigurationError):
        service.cache_stats()
    with service.cache_scope():
        assert service.generate("p").text == "x"  # no cache: calls still work
