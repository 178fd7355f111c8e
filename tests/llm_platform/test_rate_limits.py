"""Provider limits: the pure bucket book on an injected clock, and the in-process limiter."""

from __future__ import annotations

import itertools
import threading

import pytest

from stockdesk.llm_platform.application.llm_service import LLMService, LLMServiceOptions, ProviderRoute
from stockdesk.llm_platform.domain.dtos import ChatMessage, CompletionRequest, ToolSpec
from stockdesk.llm_platform.domain.exceptions import ProviderLimitWaitError
from stockdesk.llm_platform.domain.rate_limits import (
    GrantRecord,
    LimitBuckets,
    LimitGrant,
    LimitWait,
    ProviderLimits,
    estimate_tokens,
)
from stockdesk.llm_platform.infrastructure.limits.in_process import InProcessRateLimiter
from stockdesk.llm_platform.infrastructure.persistence.repositories import SqlLLMStore
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.db import Database

LEASE = 300.0


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _book(clock: FakeClock, **limits: int) -> LimitBuckets:
    return LimitBuckets({"remote": ProviderLimits(**limits)}, clock=clock)


def _granted(outcome: LimitGrant | LimitWait) -> LimitGrant:
    assert isinstance(outcome, LimitGrant), outcome
    return outcome


def _refused(outcome: LimitGrant | LimitWait) -> LimitWait:
    assert isinstance(outcome, LimitWait), outcome
    return outcome


def assert_no_overlap(grants: list[GrantRecord]) -> None:
    """max_concurrency=1: each grant starts after the one before it was released."""
    ordered = sorted(grants, key=lambda r: r.granted_at)
    for before, after in itertools.pairwise(ordered):
        assert before.released_at is not None and after.granted_at >= before.released_at, (before, after)


# --------------------------------------------------------------------------- the pure book


def test_concurrency_refuses_past_the_limit_until_a_release() -> None:
    clock = FakeClock()
    book = _book(clock, max_concurrency=2)
    first = _granted(book.try_acquire("remote", 10, LEASE))
    _granted(book.try_acquire("remote", 10, LEASE))
    clock.now = 5.0
    refusal = _refused(book.try_acquire("remote", 10, LEASE))
    # the latest re-check is when the first lease ends: granted at 0 + 300 lease - now 5 = 295
    assert (refusal.limit, refusal.retry_in) == ("max_concurrency=2", 295.0)
    book.release(first.grant_id, 10)
    _granted(book.try_acquire("remote", 10, LEASE))


def test_requests_per_minute_counts_a_sliding_window() -> None:
    clock = FakeClock()
    book = _book(clock, requests_per_minute=2)
    for at in (0.0, 10.0):
        clock.now = at
        book.release(_granted(book.try_acquire("remote", 1, LEASE)).grant_id, 1)
    clock.now = 20.0
    refusal = _refused(book.try_acquire("remote", 1, LEASE))
    # the grant at 0 leaves the window at 0 + 60: 60 - 20 = 40 s from now
    assert (refusal.limit, refusal.retry_in) == ("requests_per_minute=2", 40.0)
    clock.now = 59.9
    _refused(book.try_acquire("remote", 1, LEASE))
    clock.now = 60.0
    _granted(book.try_acquire("remote", 1, LEASE))  # window (0, 60]: holds 10 and now 60
    clock.now = 65.0
    # two grants (10, 60) in the window again; the one at 10 leaves at 70
    assert _refused(book.try_acquire("remote", 1, LEASE)).retry_in == 5.0


def test_tokens_per_minute_reserves_the_estimate_and_counts_the_actual_usage() -> None:
    clock = FakeClock()
    book = _book(clock, tokens_per_minute=1000)
    first = _granted(book.try_acquire("remote", 600, LEASE))
    clock.now = 1.0
    refusal = _refused(book.try_acquire("remote", 600, LEASE))  # 600 + 600 > 1000
    assert (refusal.limit, refusal.retry_in) == ("tokens_per_minute=1000", 59.0)
    book.release(first.grant_id, 300)  # it really spent 300
    second = _granted(book.try_acquire("remote", 600, LEASE))  # 300 + 600 = 900 <= 1000
    book.release(second.grant_id, 650)  # spent more than reserved: 300 + 650 = 950 now count
    clock.now = 2.0
    # 950 + 100 = 1050: 50 too many; the first record (300) is enough to free, leaving at 0 + 60
    assert _refused(book.try_acquire("remote", 100, LEASE)).retry_in == 58.0
    _granted(book.try_acquire("remote", 50, LEASE))  # 950 + 50 = 1000, exactly the limit


def test_a_request_larger_than_the_whole_allowance_goes_alone() -> None:
    clock = FakeClock()
    book = _book(clock, tokens_per_minute=1000)
    big = _granted(book.try_acquire("remote", 5000, LEASE))  # 5000 > 1000/min, but nothing else ran
    book.release(big.grant_id, 4000)
    assert [record.tokens for record in book.grant_log()] == [4000]  # counted at its real usage
    refusal = _refused(book.try_acquire("remote", 10, LEASE))
    assert refusal.limit.startswith("tokens_per_minute")
    clock.now = 60.0  # the minute has passed: the 4000 no longer count
    assert _granted(book.try_acquire("remote", 10, LEASE)).grant_id != big.grant_id


def test_a_failed_call_keeps_its_reservation() -> None:
    clock = FakeClock()
    book = _book(clock, tokens_per_minute=1000)
    book.release(_granted(book.try_acquire("remote", 700, LEASE)).grant_id, None)
    assert book.grant_log()[0].tokens == 700
    _refused(book.try_acquire("remote", 400, LEASE))  # 700 + 400 > 1000


def test_a_grant_never_released_frees_itself_when_its_lease_ends() -> None:
    clock = FakeClock()
    book = _book(clock, max_concurrency=1)
    _granted(book.try_acquire("remote", 1, lease_seconds=30.0))  # its worker is killed
    clock.now = 29.0
    _refused(book.try_acquire("remote", 1, LEASE))
    clock.now = 30.0
    _granted(book.try_acquire("remote", 1, LEASE))
    lost = book.grant_log()[0]
    assert lost.expired and lost.released_at == 30.0


def test_cool_down_holds_every_grant_of_the_alias_until_it_ends() -> None:
    clock = FakeClock()
    book = LimitBuckets(
        {"remote": ProviderLimits(requests_per_minute=100), "other": ProviderLimits()}, clock=clock
    )
    book.cool_down("remote", 5.0)
    book.cool_down("other", 5.0)  # an alias without limits is not held
    refusal = _refused(book.try_acquire("remote", 1, LEASE))
    assert "Retry-After" in refusal.limit and refusal.retry_in == 5.0
    assert _granted(book.try_acquire("other", 1, LEASE)).grant_id == ""
    clock.now = 5.0
    _granted(book.try_acquire("remote", 1, LEASE))


def test_aliases_are_counted_apart_and_unlimited_ones_are_not_logged() -> None:
    clock = FakeClock()
    book = LimitBuckets(
        {"a": ProviderLimits(max_concurrency=1), "b": ProviderLimits(max_concurrency=1)}, clock=clock
    )
    _granted(book.try_acquire("a", 1, LEASE))
    _granted(book.try_acquire("b", 1, LEASE))
    _refused(book.try_acquire("a", 1, LEASE))
    assert _granted(book.try_acquire("free", 1, LEASE)).grant_id == ""
    assert [r.alias for r in book.grant_log()] == ["a", "b"]


def test_estimate_counts_utf8_bytes_over_three_plus_the_whole_output_allowance() -> None:
    request = CompletionRequest(
        messages=[ChatMessage(role="system", content="abc"), ChatMessage(role="user", content="你好")],
        max_tokens=100,
    )
    # "abc" 3 bytes + "你好" 6 bytes = 9 bytes -> 9 / 3 = 3 tokens, + max_tokens 100
    assert estimate_tokens(request) == 103
    tool = ToolSpec(name="t", description="d", parameters={})
    with_tool = request.model_copy(update={"tools": [tool]})
    assert estimate_tokens(with_tool) == 103 + -(-len(tool.model_dump_json().encode()) // 3)


# --------------------------------------------------------------------------- in-process limiter


def test_threads_through_one_service_never_overlap_under_max_concurrency_one() -> None:
    limiter = InProcessRateLimiter({"remote": ProviderLimits(max_concurrency=1)})
    provider = ScriptedProvider(["ok"], latency_seconds=0.05)
    service = LLMService([ProviderRoute("remote", provider)], limiter=limiter)
    threads = [threading.Thread(target=lambda: [service.generate("p") for _ in range(3)]) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    grants = limiter.grant_log()
    assert provider.calls == 12 and len(grants) == 12
    assert_no_overlap(grants)
    # released with the real usage: scripted (100, 50) = 150 tokens each
    assert {g.tokens for g in grants} == {150}


def test_a_cache_hit_takes_no_grant(database: Database) -> None:
    limiter = InProcessRateLimiter({"remote": ProviderLimits(requests_per_minute=1)}, max_wait_seconds=0.2)
    provider = ScriptedProvider(["ok"])
    service = LLMService([ProviderRoute("remote", provider)], cache=SqlLLMStore(database), limiter=limiter)
    with service.cache_scope():
        service.generate("p")
        again = service.generate("p")  # rpm=1 would refuse a second provider call for a minute
    assert again.cached and provider.calls == 1 and len(limiter.grant_log()) == 1


def test_waiting_too_long_names_the_limit_and_fails_over_to_the_next_alias() -> None:
    limiter = InProcessRateLimiter({"remote": ProviderLimits(requests_per_minute=1)}, max_wait_seconds=0.2)
    limited = ScriptedProvider(["from remote"])
    spare = ScriptedProvider(["from spare"])
    service = LLMService(
        [ProviderRoute("remote", limited, priority=0), ProviderRoute("spare", spare, priority=1)],
        limiter=limiter,
        options=LLMServiceOptions(backoff_seconds=0.0),
    )
    assert service.generate("p").text == "from remote"
    second = service.generate("p")
    assert second.text == "from spare" and second.alias == "spare"
    assert limited.calls == 1  # the wait error is not retried on the same alias
    with pytest.raises(ProviderLimitWaitError, match=r"alias 'remote'.*requests_per_minute=1"):
        limiter.acquire("remote", 1, lease_seconds=LEASE)
