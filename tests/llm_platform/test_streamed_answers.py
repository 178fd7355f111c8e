"""Answers read as streams (the embedded model's): the same response as one body, and a cancel that
the server sees at its next token (issue 32, item 1: a cancelled call frees llama.cpp's slot).

The real `openai` SDK adapter reads a real local server that streams chunks shaped as llama.cpp's
server sends them (tests.llm_platform.chat_server); as llama.cpp does, the server notices a client
gone only when a write to it fails.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from stockdesk.llm_platform.domain.dtos import ChatMessage, CompletionRequest, ToolSpec
from stockdesk.llm_platform.domain.exceptions import LLMTimeoutError, LLMTransientError
from stockdesk.llm_platform.infrastructure.openai_compatible import OpenAICompatibleProvider
from tests.llm_platform.chat_server import ChatServer
from tests.llm_platform.test_cancel_in_flight import _InJob, _wait_for

LONG = "1, " * 600  # 600 pieces 0.05 s apart: a 30 s answer


def _request(**kwargs: object) -> CompletionRequest:
    fields: dict[str, object] = {
        "messages": [ChatMessage(role="user", content="count")],
        "timeout_seconds": 60,
    }
    return CompletionRequest(**(fields | kwargs))  # type: ignore[arg-type]


def _streaming(server: ChatServer) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider(
        name="embedded", base_url=server.base_url, model="m", api_key=None, streams=True
    )


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[ChatServer]:
    chat = ChatServer(**getattr(request, "param", {})).start()
    yield chat
    chat.stop()


@pytest.mark.parametrize("server", [{"content": '{"answer": "in pieces"}', "chunks": 5}], indirect=True)
def test_a_streamed_answer_is_the_same_response_with_its_usage_and_cache_counts(server: ChatServer) -> None:
    answer = _streaming(server).complete(_request())
    assert answer.text == '{"answer": "in pieces"}' and answer.finish_reason == "stop"
    assert answer.usage.prompt_tokens == 1000 and answer.usage.completion_tokens == 200
    # llama.cpp's timings on the stream's last chunk: tests/llm_platform/test_prompt_cache_usage.py
    sent = server.state.bodies[0]
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}


def test_a_request_with_tools_is_not_streamed(server: ChatServer) -> None:
    tool = ToolSpec(name="lookup", description="d", parameters={"type": "object", "properties": {}})
    answer = _streaming(server).complete(_request(tools=[tool]))
    assert answer.text == '{"answer": "ok"}'
    assert "stream" not in server.state.bodies[0]


@pytest.mark.parametrize("server", [{"content": LONG, "chunks": 600, "cut_after": 3}], indirect=True)
def test_a_stream_that_stops_before_its_end_is_transient(server: ChatServer) -> None:
    with pytest.raises(LLMTransientError, match="stopped before its end"):
        _streaming(server).complete(_request())


@pytest.mark.parametrize("server", [{"content": LONG, "chunks": 600, "chunk_seconds": 0.05}], indirect=True)
def test_the_timeout_is_the_whole_answers_not_each_chunks(server: ChatServer) -> None:
    started = time.monotonic()
    with pytest.raises(LLMTimeoutError):
        _streaming(server).complete(_request(timeout_seconds=1))
    assert time.monotonic() - started < 5.0
    assert _wait_for(lambda: len(server.state.hangups) == 1, 3.0), "the stream was left open"


@pytest.mark.parametrize("server", [{"content": LONG, "chunks": 600, "chunk_seconds": 0.05}], indirect=True)
def test_a_cancel_ends_a_streamed_call_and_the_server_stops_at_its_next_write(server: ChatServer) -> None:
    provider = _streaming(server)
    job = _InJob(lambda: provider.complete(_request()))
    assert _wait_for(lambda: len(server.state.arrivals) == 1)
    cancelled_at = job.cancel_after(0.5)  # mid-answer: pieces are being written
    assert isinstance(job.outcome, LLMTransientError), job.outcome  # the service turns it into JobCancelled
    assert job.ended_at is not None and job.ended_at - cancelled_at < 2.0
    assert _wait_for(lambda: len(server.state.hangups) == 1, 3.0), "the server went on writing"
    assert server.state.hangups[0] - cancelled_at < 1.0
