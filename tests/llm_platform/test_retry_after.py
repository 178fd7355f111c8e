"""A provider's 429 hint (Retry-After and kin) read by the real SDK adapter and honoured on retry."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import pytest

from stockdesk.llm_platform.application.llm_service import LLMService, LLMServiceOptions, ProviderRoute
from stockdesk.llm_platform.domain.dtos import ChatMessage, CompletionRequest
from stockdesk.llm_platform.domain.exceptions import LLMTransientError
from stockdesk.llm_platform.domain.rate_limits import ProviderLimits
from stockdesk.llm_platform.infrastructure.limits.in_process import InProcessRateLimiter
from stockdesk.llm_platform.infrastructure.openai_compatible import OpenAICompatibleProvider
from stockdesk.llm_platform.infrastructure.retry_hints import retry_after_seconds
from tests.llm_platform.chat_server import Answer, ChatServer

NOW = datetime(2024, 1, 1, 0, 0, 0, tzinfo=UTC)


@contextmanager
def _server(*script: Answer) -> Iterator[ChatServer]:
    server = ChatServer(script).start()
    try:
        yield server
    finally:
        server.stop()


def _provider(server: ChatServer) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider(name="remote", base_url=server.base_url, model="m", api_key="sk-test")


def _request() -> CompletionRequest:
    return CompletionRequest(messages=[ChatMessage(role="user", content="hi")])


# --------------------------------------------------------------------------- reading the headers


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"Retry-After": "7"}, 7.0),
        ({"retry-after": "2.5"}, 2.5),
        ({"Retry-After": "Mon, 01 Jan 2024 00:00:30 GMT"}, 30.0),  # 30 s after NOW
        ({"Retry-After": "Sun, 31 Dec 2023 23:59:00 GMT"}, 0.0),  # already past: no wait
        ({"retry-after-ms": "1500", "Retry-After": "10"}, 1.5),  # the finer one wins
        ({"x-ratelimit-reset-requests": "1m30s", "x-ratelimit-reset-tokens": "250ms"}, 90.0),
        ({"x-ratelimit-reset-tokens": "6m0s"}, 360.0),
        ({"x-ratelimit-reset-requests": "1.5s"}, 1.5),
        ({"Retry-After": "soon"}, None),
        ({"x-ratelimit-reset-requests": "later"}, None),
        ({}, None),
    ],
)
def test_retry_hint_from_headers(headers: dict[str, str], seconds: float | None) -> None:
    assert retry_after_seconds(headers, now=NOW) == seconds


# --------------------------------------------------------------------------- through the SDK


def test_a_429_carries_the_providers_retry_after_through_the_sdk() -> None:
    with _server(Answer(429, (("Retry-After", "3"),))) as server:
        provider = _provider(server)
        with pytest.raises(LLMTransientError, match=r"429.*retry in 3 s") as info:
            provider.complete(_request())
        provider.close()
        assert info.value.retry_after == 3.0


def test_a_503_with_retry_after_ms_is_transient_with_its_hint() -> None:
    with _server(Answer(503, (("retry-after-ms", "1200"),))) as server:
        provider = _provider(server)
        with pytest.raises(LLMTransientError) as info:
            provider.complete(_request())
        provider.close()
        assert info.value.retry_after == 1.2


def test_a_429_without_a_hint_has_none() -> None:
    with _server(Answer(429)) as server:
        provider = _provider(server)
        with pytest.raises(LLMTransientError) as info:
            provider.complete(_request())
        provider.close()
        assert info.value.retry_after is None


def test_the_retry_waits_as_long_as_the_provider_asked() -> None:
    with _server(Answer(429, (("Retry-After", "1"),))) as server:
        # our own backoff is zero: only the hint can make the retry wait
        service = LLMService(
            [ProviderRoute("remote", _provider(server))],
            options=LLMServiceOptions(backoff_seconds=0.0, max_retries=1),
        )
        result = service.generate("p")
        service.close()
        assert result.text == '{"answer": "ok"}'
        assert server.state.statuses == [429, 200]
        first, second = server.state.arrivals
        assert second - first >= 1.0


def test_a_429_holds_the_other_workers_sharing_the_limiter() -> None:
    with _server(Answer(429, (("Retry-After", "1"),))) as server:
        limiter = InProcessRateLimiter({"remote": ProviderLimits(requests_per_minute=1000)})
        options = LLMServiceOptions(backoff_seconds=0.0, max_retries=0)
        worker_a = LLMService([ProviderRoute("remote", _provider(server))], limiter=limiter, options=options)
        worker_b = LLMService([ProviderRoute("remote", _provider(server))], limiter=limiter, options=options)
        with pytest.raises(LLMTransientError):
            worker_a.generate("p")  # no retries left: A gives up, but the hint stays
        assert worker_b.generate("p").text == '{"answer": "ok"}'
        worker_a.close()
        worker_b.close()
        refused, answered = server.state.arrivals
        assert server.state.statuses == [429, 200] and answered - refused >= 1.0
