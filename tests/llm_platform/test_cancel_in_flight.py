"""A cancelled job cuts its LLM call in flight (issue 32, item 1: "an LLM call in flight is aborted
(HTTP request closed for remote providers ...)").

The real `openai` SDK adapter talks to a real local HTTP server that takes 30 s to answer and
watches its connection: a cancel must end the call within a second or two, and the server must see
the client hang up (what makes llama.cpp cancel the slot, and a remote API stop generating).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from stockdesk.llm_platform.application.llm_service import LLMService, LLMServiceOptions, ProviderRoute
from stockdesk.llm_platform.domain.dtos import ChatMessage, CompletionRequest
from stockdesk.llm_platform.domain.exceptions import LLMTransientError
from stockdesk.llm_platform.domain.rate_limits import ProviderLimits
from stockdesk.llm_platform.infrastructure.embedded.provider import EmbeddedProvider
from stockdesk.llm_platform.infrastructure.limits.in_process import InProcessRateLimiter
from stockdesk.llm_platform.infrastructure.openai_compatible import OpenAICompatibleProvider
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.tasks.cancel import CancelToken, JobCancelled, set_token
from tests.llm_platform.chat_server import ChatServer

SLOW = 30.0  # the server's answer time: far longer than any cancel may take


@pytest.fixture
def slow_server() -> Iterator[ChatServer]:
    server = ChatServer(latency_seconds=SLOW).start()
    yield server
    server.stop()


def _request() -> CompletionRequest:
    return CompletionRequest(messages=[ChatMessage(role="user", content="hi")], timeout_seconds=120)


class _InJob:
    """Runs `work` in a thread as a job does (with a cancel token), recording how it ended."""

    def __init__(self, work: Callable[[], Any]):
        self.token = CancelToken()
        self.outcome: BaseException | Any = None
        self.ended_at: float | None = None

        def run() -> None:
            set_token(self.token)
            try:
                self.outcome = work()
            except BaseException as exc:  # the outcome under test
                self.outcome = exc
            self.ended_at = time.monotonic()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def cancel_after(self, seconds: float) -> float:
        time.sleep(seconds)
        cancelled_at = time.monotonic()
        self.token.cancel("cancelled by the user")
        self._thread.join(timeout=10)
        return cancelled_at


def _wait_for(condition: Callable[[], bool], seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def _provider(server: ChatServer) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider(
        name="remote", base_url=server.base_url, model="m", api_key="sk-cancel-in-flight"
    )


def test_a_cancel_cuts_the_providers_connection_and_the_server_sees_it_go(slow_server: ChatServer) -> None:
    provider = _provider(slow_server)
    job = _InJob(lambda: provider.complete(_request()))
    assert _wait_for(lambda: len(slow_server.state.arrivals) == 1)
    cancelled_at = job.cancel_after(0.3)
    assert isinstance(job.outcome, LLMTransientError), job.outcome
    assert job.ended_at is not None and job.ended_at - cancelled_at < 2.0
    assert _wait_for(lambda: len(slow_server.state.hangups) == 1, 3.0), "the server never saw the client go"
    assert slow_server.state.hangups[0] - cancelled_at < 2.0


def test_outside_a_job_and_uncancelled_the_call_answers_as_before() -> None:
    server = ChatServer(latency_seconds=0.2, content='{"answer": "ok"}').start()
    try:
        provider = _provider(server)
        plain = provider.complete(_request())  # no job: the shared pool
        job = _InJob(lambda: provider.complete(_request()))  # a job never cancelled: its own client
        assert _wait_for(lambda: job.ended_at is not None)
        assert plain.text == '{"answer": "ok"}'
        assert job.outcome.text == '{"answer": "ok"}' and job.outcome.usage.prompt_tokens == 1000
        assert server.state.hangups == []
    finally:
        server.stop()


def test_the_service_stops_at_a_cut_call_without_retrying_or_failing_over(slow_server: ChatServer) -> None:
    """The cut call is recorded as failed in the audit, and neither retried nor sent to the next alias."""
    second = ScriptedProvider(['{"answer": "from the second alias"}'])
    service = LLMService(
        [
            ProviderRoute(alias="remote", provider=_provider(slow_server), priority=0),
            ProviderRoute(alias="backup", provider=second, priority=1),
        ],
        options=LLMServiceOptions(backoff_seconds=0.0, max_retries=3),
    )
    job = _InJob(lambda: service.generate("hi", caller="test", timeout_seconds=120))
    assert _wait_for(lambda: len(slow_server.state.arrivals) == 1)
    cancelled_at = job.cancel_after(0.3)
    assert isinstance(job.outcome, JobCancelled), job.outcome
    assert "cancelled by the user" in job.outcome.message
    assert job.ended_at is not None and job.ended_at - cancelled_at < 2.0
    assert len(slow_server.state.arrivals) == 1 and second.calls == 0


def test_a_cancelled_job_makes_no_new_call() -> None:
    provider = ScriptedProvider(['{"answer": "x"}'])
    service = LLMService([ProviderRoute(alias="p", provider=provider, priority=0)])
    token = CancelToken()
    token.cancel("cancelled by the user")

    def call() -> Any:
        set_token(token)
        return service.generate("hi", caller="test", timeout_seconds=120)

    outcome: list[BaseException] = []
    thread = threading.Thread(target=lambda: outcome.append(_raised(call)))
    thread.start()
    thread.join(5)
    assert isinstance(outcome[0], JobCancelled) and provider.calls == 0


def _raised(call: Callable[[], Any]) -> BaseException | None:
    try:
        call()
    except BaseException as exc:  # the outcome under test
        return exc
    return None


def test_a_slow_scripted_reply_is_cut_like_a_real_one() -> None:
    """The logic tests' provider behaves as a real one under a cancel (what the browser test uses)."""
    provider = ScriptedProvider(['{"answer": "late"}'], latency_seconds=SLOW)
    service = LLMService([ProviderRoute(alias="p", provider=provider, priority=0)])
    job = _InJob(lambda: service.generate("hi", caller="test", timeout_seconds=120))
    assert _wait_for(lambda: provider.calls == 1)
    cancelled_at = job.cancel_after(0.2)
    assert isinstance(job.outcome, JobCancelled)
    assert job.ended_at is not None and job.ended_at - cancelled_at < 1.0


def test_a_caller_queued_for_the_embedded_slot_leaves_the_queue_when_cancelled(
    slow_server: ChatServer,
) -> None:
    """One slot, taken by a slow call outside the job: the job's call waits for it and stops waiting
    on cancel, without ever reaching the server."""

    class Server:
        def base_url(self) -> str:
            return slow_server.base_url

        def restart_if_dead(self) -> bool:
            return False

        def stop(self) -> None:
            pass

    provider = EmbeddedProvider(Server(), slots=1)  # type: ignore[arg-type]
    holder = threading.Thread(target=lambda: _raised(lambda: provider.complete(_request())), daemon=True)
    holder.start()
    assert _wait_for(lambda: len(slow_server.state.arrivals) == 1)
    job = _InJob(lambda: provider.complete(_request()))
    cancelled_at = job.cancel_after(0.5)
    assert isinstance(job.outcome, JobCancelled)
    assert job.ended_at is not None and job.ended_at - cancelled_at < 1.0
    assert len(slow_server.state.arrivals) == 1


def test_a_caller_waiting_for_a_rate_limit_stops_waiting_when_cancelled() -> None:
    limiter = InProcessRateLimiter({"p": ProviderLimits(max_concurrency=1)}, max_wait_seconds=60)
    grant = limiter.acquire("p", 10, lease_seconds=60)  # the one slot, held
    job = _InJob(lambda: limiter.acquire("p", 10, lease_seconds=60))
    cancelled_at = job.cancel_after(0.3)
    assert isinstance(job.outcome, JobCancelled)
    assert job.ended_at is not None and job.ended_at - cancelled_at < 1.0
    limiter.release(grant, 10)
