"""Cost in USD per call at each alias's prices: in the usage meter, its `as_dict`, and its budget."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from stockdesk.llm_platform.application.llm_service import LLMService, LLMServiceOptions, ProviderRoute
from stockdesk.llm_platform.container import build_llm_service
from stockdesk.llm_platform.domain.exceptions import LLMTransientError, TokenBudgetExceededError
from stockdesk.llm_platform.infrastructure.persistence.repositories import SqlLLMStore
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import LLMAliasConfig, Settings
from stockdesk.shared.db import Database
from tests.llm_platform.chat_server import ChatServer


class Verdict(BaseModel):
    action: str


VALID = json.dumps({"action": "BUY"})


def _route(alias: str, provider: ScriptedProvider, priority: int = 0) -> ProviderRoute:
    # $2 per million prompt tokens, $8 per million completion tokens
    return ProviderRoute(
        alias, provider, priority=priority, input_price_per_million=2.0, output_price_per_million=8.0
    )


def test_a_call_costs_its_tokens_at_the_alias_prices() -> None:
    service = LLMService([_route("remote", ScriptedProvider(["ok"], tokens_per_call=(1000, 500)))])
    with service.usage_scope() as meter:
        service.generate("p")
    # (1000 * 2 + 500 * 8) / 1e6 = (2000 + 4000) / 1e6 = 0.006
    assert meter.cost == pytest.approx(0.006)
    assert meter.as_dict()["cost_usd"] == 0.006 and meter.as_dict()["tokens"] == 1500


def test_the_repair_call_is_charged_too() -> None:
    provider = ScriptedProvider(["not json", VALID], tokens_per_call=(1000, 500))
    service = LLMService([_route("remote", provider)])
    with service.usage_scope() as meter:
        result = service.generate("p", response_model=Verdict)
    assert result.attempts == 2 and meter.calls == 2
    assert meter.cost == pytest.approx(0.012)  # two calls of 0.006 each


def test_failed_attempts_cost_nothing_and_the_fail_over_alias_charges_its_own_prices() -> None:
    failing = ScriptedProvider([LLMTransientError("503")], tokens_per_call=(1000, 500))
    spare = ScriptedProvider(["ok"], tokens_per_call=(1000, 500))
    cheap = ProviderRoute(
        "spare", spare, priority=1, input_price_per_million=0.5, output_price_per_million=1.0
    )
    service = LLMService([_route("remote", failing), cheap], options=LLMServiceOptions(backoff_seconds=0.0))
    with service.usage_scope() as meter:
        assert service.generate("p").alias == "spare"
    # only the spare answered: (1000 * 0.5 + 500 * 1.0) / 1e6 = 1000 / 1e6 = 0.001
    assert meter.errors == 3 and meter.cost == pytest.approx(0.001)


def test_a_cache_hit_costs_nothing(database: Database) -> None:
    provider = ScriptedProvider(["ok"], tokens_per_call=(1000, 500))
    service = LLMService([_route("remote", provider)], cache=SqlLLMStore(database))
    with service.cache_scope(), service.usage_scope() as meter:
        service.generate("p")
        assert service.generate("p").cached
    assert meter.cache_hits == 1 and meter.cost == pytest.approx(0.006)  # the first call only


def test_a_cost_budget_refuses_the_call_after_it_is_spent() -> None:
    provider = ScriptedProvider(["ok"], tokens_per_call=(1000, 500))
    service = LLMService([_route("remote", provider)])
    with service.usage_scope(max_cost_usd=0.01) as meter:
        service.generate("p")  # 0.006 spent, under 0.01
        service.generate("p")  # checked before: 0.006 < 0.01; after it 0.012
        with pytest.raises(TokenBudgetExceededError, match=r"cost budget of \$0\.0100"):
            service.generate("p")
    assert provider.calls == 2 and meter.cost == pytest.approx(0.012)


def test_nested_scopes_each_count_their_own_cost() -> None:
    service = LLMService([_route("remote", ScriptedProvider(["ok"], tokens_per_call=(1000, 500)))])
    with service.usage_scope() as outer:
        service.generate("p")
        with service.usage_scope() as inner:
            service.generate("p")
    assert inner.cost == pytest.approx(0.006) and outer.cost == pytest.approx(0.012)


def test_prices_come_from_the_alias_configuration(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    server = ChatServer(prompt_tokens=1000, completion_tokens=200).start()
    priced = LLMAliasConfig(
        name="deepseek",
        base_url=server.base_url,
        model="deepseek-chat",
        input_price_per_million=0.27,
        output_price_per_million=1.10,
    )
    service = build_llm_service(settings.model_copy(update={"llm_aliases": [priced]}), None)
    try:
        with service.usage_scope() as meter:
            service.generate("p")
    finally:
        service.close()
        server.stop()
    # (1000 * 0.27 + 200 * 1.10) / 1e6 = (270 + 220) / 1e6 = 0.00049
    assert meter.as_dict()["cost_usd"] == pytest.approx(0.00049)


def test_an_alias_without_prices_costs_nothing(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    server = ChatServer(prompt_tokens=1000, completion_tokens=200).start()
    unpriced = LLMAliasConfig(name="ollama", base_url=server.base_url, model="qwen")
    service = build_llm_service(settings.model_copy(update={"llm_aliases": [unpriced]}), None)
    try:
        with service.usage_scope() as meter:
            service.generate("p")
    finally:
        service.close()
        server.stop()
    assert meter.tokens == 1200 and meter.as_dict()["cost_usd"] == 0.0
