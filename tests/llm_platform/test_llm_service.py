"""LLMService logic with the scripted provider: routing, retries, repair, audit, cache, budget."""

from __future__ import annotations

import json
import threading
from typing import Literal

import pytest
from pydantic import BaseModel
from sqlalchemy import select

from stockdesk.llm_platform.application.budget import TokenBudget
from stockdesk.llm_platform.application.llm_service import LLMService, LLMServiceOptions, ProviderRoute
from stockdesk.llm_platform.domain.exceptions import (
    LLMOutputParseError,
    LLMProviderError,
    LLMTransientError,
    TokenBudgetExceededError,
    UnknownAliasError,
)
from stockdesk.llm_platform.infrastructure.persistence.models import LLMCallRow
from stockdesk.llm_platform.infrastructure.persistence.repositories import SqlLLMStore
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.db import Database
from tests.conftest import scripted_service


class Signal(BaseModel):
    signal: Literal["BULLISH", "BEARISH", "NEUTRAL"]
    confidence: float


VALID = json.dumps({"signal": "BULLISH", "confidence": 0.7})


def test_generate_returns_parsed_object_usage_model_and_provider() -> None:
    provider = ScriptedProvider([VALID], tokens_per_call=(120, 30))
    result = scripted_service(provider).generate("p", "s", response_model=Signal)
    assert result.parsed == Signal(signal="BULLISH", confidence=0.7)
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (120, 30)
    assert (result.model, result.provider, result.alias, result.attempts) == (
        "scripted-model",
        "scripted",
        "p0",
        1,
    )
    sent = provider.requests[0]
    assert [m.role for m in sent.messages] == ["system", "user"]
    assert sent.json_schema is not None and sent.json_schema["properties"]["signal"]["enum"]


def test_plain_text_generation_has_no_schema() -> None:
    provider = ScriptedProvider(["hello"])
    result = scripted_service(provider).generate("p")
    assert result.text == "hello" and result.parsed is None
    assert provider.requests[0].json_schema is None


def test_invalid_output_is_repaired_once_with_the_validation_errors() -> None:
    bad = json.dumps({"signal": "UP", "confidence": 0.7})
    provider = ScriptedProvider([bad, VALID])
    result = scripted_service(provider).generate("p", response_model=Signal)
    assert result.parsed.signal == "BULLISH" and result.attempts == 2
    assert provider.calls == 2
    repair_messages = provider.requests[1].messages
    assert repair_messages[-2].role == "assistant" and repair_messages[-2].content == bad
    assert "`signal`" in repair_messages[-1].content and '"UP"' in repair_messages[-1].content
    assert result.usage.prompt_tokens == 200  # both calls counted


def test_still_invalid_after_repair_raises_with_raw_output(database: Database) -> None:
    provider = ScriptedProvider(["not json at all", "still not json"])
    service = scripted_service(provider, database=database)
    with pytest.raises(LLMOutputParseError) as info:
        service.generate("p", response_model=Signal, caller="test.caller")
    assert info.value.raw_output == "still not json"
    assert provider.calls == 2
    with database.session() as session:
        statuses = [row.status for row in session.scalars(select(LLMCallRow).order_by(LLMCallRow.id))]
    assert statuses == ["ok", "ok", "parse_error"]


def test_transient_errors_are_retried_then_succeed() -> None:
    provider = ScriptedProvider([LLMTransientError("503"), LLMTransientError("503"), VALID])
    result = scripted_service(provider, max_retries=2).generate("p", response_model=Signal)
    assert result.parsed.signal == "BULLISH" and provider.calls == 3


def test_fail_over_to_next_alias_after_retries_are_spent() -> None:
    down = ScriptedProvider([LLMTransientError("connection refused")], name="down")
    up = ScriptedProvider([VALID], name="up")
    result = scripted_service(down, up, max_retries=1).generate("p", response_model=Signal)
    assert result.alias == "p1" and result.provider == "up"
    assert down.calls == 2 and up.calls == 1


def test_every_provider_failing_names_each_one() -> None:
    a = ScriptedProvider([LLMTransientError("timeout")])
    b = ScriptedProvider([LLMTransientError("502")])
    with pytest.raises(LLMTransientError) as info:
        scripted_service(a, b, max_retries=0).generate("p")
    assert "p0: timeout" in info.value.message and "p1: 502" in info.value.message


def test_permanent_provider_error_is_not_retried_nor_failed_over() -> None:
    bad_key = ScriptedProvider([LLMProviderError("401 bad key")])
    other = ScriptedProvider([VALID])
    with pytest.raises(LLMProviderError):
        scripted_service(bad_key, other).generate("p")
    assert bad_key.calls == 1 and other.calls == 0


def test_alias_selects_one_route_and_unknown_alias_is_a_clear_error() -> None:
    a, b = ScriptedProvider(["from a"]), ScriptedProvider(["from b"])
    service = scripted_service(("fast", a), ("deep", b))
    assert service.generate("p", alias="deep").text == "from b"
    with pytest.raises(UnknownAliasError) as info:
        service.generate("p", alias="nope")
    assert "nope" in info.value.message and "fast, deep" in info.value.message
    assert info.value.http_status == 400


def test_tags_restrict_the_candidates() -> None:
    cheap = ProviderRoute("cheap", ScriptedProvider(["cheap"]), priority=0, tags=("fast",))
    smart = ProviderRoute("smart", ScriptedProvider(["smart"]), priority=1, tags=("reasoning",))
    service = LLMService([cheap, smart], options=LLMServiceOptions(backoff_seconds=0))
    assert service.generate("p", tags=["reasoning"]).text == "smart"
    assert service.generate("p").text == "cheap"


def test_every_call_is_audited_with_run_id_and_no_prompt_text(database: Database) -> None:
    provider = ScriptedProvider([LLMTransientError("boom"), VALID, VALID])
    service = scripted_service(provider, database=database)
    with service.run_scope("run-42"):
        service.generate("SECRET PROMPT", response_model=Signal, caller="research.valuation", tags=["x"])
        service.generate("OTHER PROMPT", response_model=Signal, caller="research.valuation")
    records = SqlLLMStore(database).list_for_run("run-42")
    assert [(r.status, r.error_class) for r in records] == [
        ("error", "LLMTransientError"),
        ("ok", None),
        ("ok", None),
    ]
    ok = records[1]
    assert (ok.caller, ok.alias, ok.prompt_tokens, ok.completion_tokens) == (
        "research.valuation",
        "p0",
        100,
        50,
    )
    # the hash names the prompt without holding it: one prompt, one hash (retry included); another, another
    hashes = [r.prompt_hash for r in records]
    assert all(len(h) == 16 and set(h) <= set("0123456789abcdef") for h in hashes)
    assert hashes[0] == hashes[1] != hashes[2]
    with database.session() as session:
        dumped = " ".join(str(v) for row in session.scalars(select(LLMCallRow)) for v in vars(row).values())
    assert "SECRET PROMPT" not in dumped


def test_response_cache_replays_identical_calls(database: Database) -> None:
    provider = ScriptedProvider([VALID, json.dumps({"signal": "BEARISH", "confidence": 0.1})])
    service = scripted_service(provider, database=database, cache_enabled=True)
    first = service.generate("same", response_model=Signal, temperature=0.0)
    second = service.generate("same", response_model=Signal, temperature=0.0)
    assert provider.calls == 1 and second.cached and not first.cached
    assert second.parsed == first.parsed
    different = service.generate("same", response_model=Signal, temperature=0.5)
    assert provider.calls == 2 and different.parsed.signal == "BEARISH"


def test_cache_is_opt_in(database: Database) -> None:
    provider = ScriptedProvider([VALID])
    service = scripted_service(provider, database=database)
    service.generate("same")
    service.generate("same")
    assert provider.calls == 2


def test_token_budget_refuses_further_calls_in_the_run() -> None:
    provider = ScriptedProvider([VALID], tokens_per_call=(300, 100))
    service = LLMService(
        [ProviderRoute("p0", provider)], budget=TokenBudget(500), options=LLMServiceOptions(backoff_seconds=0)
    )
    with service.run_scope("budgeted"):
        service.generate("one")  # 400 tokens
        service.generate("two")  # 800: over after this call
        with pytest.raises(TokenBudgetExceededError) as info:
            service.generate("three")
    assert "STOCKDESK_MAX_TOKENS_PER_RUN" in info.value.message
    assert provider.calls == 2
    with service.run_scope("another-run"):
        service.generate("fresh budget")
    assert provider.calls == 3


def test_parallel_callers_are_each_answered() -> None:
    provider = ScriptedProvider([VALID], latency_seconds=0.05)
    service = scripted_service(provider)
    results: list[str] = []

    def call() -> None:
        results.append(service.generate("p", response_model=Signal).parsed.signal)

    threads = [threading.Thread(target=call) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == ["BULLISH"] * 5 and provider.calls == 5
