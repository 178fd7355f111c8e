"""OpenAICompatibleProvider against a real (tiny) HTTP server speaking the OpenAI chat shape.

No SDK mocks: the `openai` client really talks HTTP to a ThreadingHTTPServer on 127.0.0.1, whose
answer (status, delay, body) each test configures and whose received requests each test inspects.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from stockdesk.llm_platform.domain.dtos import ChatMessage, CompletionRequest, CompletionResponse
from stockdesk.llm_platform.domain.exceptions import LLMProviderError, LLMTransientError
from stockdesk.llm_platform.infrastructure.openai_compatible import OpenAICompatibleProvider
from tests.llm_platform.sse import stream_of, write_stream

API_KEY = "sk-test-1234567890"
MODEL = "test-model-7b"

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"verdict": {"type": "string"}, "score": {"type": "number"}},
    "required": ["verdict", "score"],
    "additionalProperties": False,
}


# --------------------------------------------------------------------------- fake server


@dataclass
class ReceivedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class FakeOpenAI:
    """Behaviour knobs (set them in the test) and what the server received."""

    port: int = 0
    status: int = 200
    delay_seconds: float = 0.0
    body: dict[str, Any] | None = None  # None: a normal completion (or an error body if status >= 400)
    content: str = '{"verdict": "buy", "score": 0.8}'
    finish_reason: str = "stop"
    prompt_tokens: int = 11
    completion_tokens: int = 7
    received: list[ReceivedRequest] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    answered: int = 0  # answers the handler finished sending

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def completion_body(self, model: str) -> dict[str, Any]:
        return {
            "id": "chatcmpl-test-1",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": self.content},
                    "finish_reason": self.finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "total_tokens": self.prompt_tokens + self.completion_tokens,
            },
        }

    def error_body(self) -> dict[str, Any]:
        return {
            "error": {
                "message": f"fake error {self.status}",
                "type": "invalid_request_error",
                "param": None,
                "code": None,
            }
        }


def _handler_for(state: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep the test output clean
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            state.received.append(
                ReceivedRequest(
                    path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=json.loads(raw) if raw else {},
                )
            )
            if state.delay_seconds:
                # An event rather than a bare sleep: the fixture's teardown releases it at once.
                state.release.wait(state.delay_seconds)
            if state.body is not None:
                payload = state.body
            elif state.status >= 400:
                payload = state.error_body()
            else:
                payload = state.completion_body(state.received[-1].body.get("model", "unknown"))
            if state.status == 200 and state.received[-1].body.get("stream"):  # the embedded provider's way
                if write_stream(self, stream_of(payload)):
                    state.answered += 1
                return
            data = json.dumps(payload).encode()
            try:
                self.send_response(state.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                state.answered += 1
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client already gave up (timeout test)

    return Handler


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    state = FakeOpenAI()
    httpd = _QuietServer(("127.0.0.1", 0), _handler_for(state))
    state.port = httpd.server_address[1]
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-openai", daemon=True
    )
    thread.start()
    try:
        yield state
    finally:
        state.release.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
        assert not thread.is_alive()


def _provider(base_url: str, **kwargs: Any) -> Iterator[OpenAICompatibleProvider]:
    provider = OpenAICompatibleProvider(
        name=kwargs.pop("name", "fakeai"),
        base_url=base_url,
        model=kwargs.pop("model", MODEL),
        api_key=kwargs.pop("api_key", API_KEY),
        **kwargs,
    )
    try:
        yield provider
    finally:
        provider.close()


@pytest.fixture
def provider(server: FakeOpenAI) -> Iterator[OpenAICompatibleProvider]:
    yield from _provider(server.base_url)


def _request(**kwargs: Any) -> CompletionRequest:
    return CompletionRequest(
        messages=[
            ChatMessage(role="system", content="You are an equity analyst."),
            ChatMessage(role="user", content="Rate ACME."),
        ],
        **kwargs,
    )


# --------------------------------------------------------------------------- happy path


def test_normal_answer_maps_text_finish_reason_usage_model_and_provider(
    server: FakeOpenAI, provider: OpenAICompatibleProvider
) -> None:
    server.content = "ACME looks fine."
    server.finish_reason = "length"
    server.prompt_tokens, server.completion_tokens = 23, 5

    response = provider.complete(_request())

    assert isinstance(response, CompletionResponse)
    assert response.text == "ACME looks fine."
    assert response.finish_reason == "length"
    assert response.usage.prompt_tokens == 23
    assert response.usage.completion_tokens == 5
    assert response.usage.total_tokens == 28
    assert response.model == MODEL
    assert response.provider == "fakeai"


def test_request_reaches_chat_completions_with_messages_and_sampling(
    server: FakeOpenAI, provider: OpenAICompatibleProvider
) -> None:
    provider.complete(_request(temperature=0.7, max_tokens=321))

    assert len(server.received) == 1
    sent = server.received[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.body["model"] == MODEL
    assert sent.body["messages"] == [
        {"role": "system", "content": "You are an equity analyst."},
        {"role": "user", "content": "Rate ACME."},
    ]
    assert sent.body["temperature"] == pytest.approx(0.7)
    assert sent.body["max_tokens"] == 321
    assert "response_format" not in sent.body  # no schema asked, no response_format sent


def test_api_key_is_sent_as_bearer_authorization(
    server: FakeOpenAI, provider: OpenAICompatibleProvider
) -> None:
    provider.complete(_request())

    assert server.received[0].headers["authorization"] == f"Bearer {API_KEY}"


def test_missing_api_key_sends_a_placeholder_rather_than_nothing(server: FakeOpenAI) -> None:
    for provider in _provider(server.base_url, api_key=None):
        provider.complete(_request())

    assert server.received[0].headers["authorization"] == "Bearer not-needed"


def test_json_schema_is_sent_as_response_format_json_schema(
    server: FakeOpenAI, provider: OpenAICompatibleProvider
) -> None:
    provider.complete(_request(json_schema=SCHEMA, schema_name="stock_verdict"))

    assert server.received[0].body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "stock_verdict", "schema": SCHEMA},
    }


def test_schema_name_is_cut_to_64_characters(server: FakeOpenAI, provider: OpenAICompatibleProvider) -> None:
    provider.complete(_request(json_schema=SCHEMA, schema_name="x" * 100))

    assert server.received[0].body["response_format"]["json_schema"]["name"] == "x" * 64


def test_json_object_mode_when_provider_does_not_support_json_schema(server: FakeOpenAI) -> None:
    for provider in _provider(server.base_url, supports_json_schema=False):
        provider.complete(_request(json_schema=SCHEMA))

    assert server.received[0].body["response_format"] == {"type": "json_object"}


def test_empty_choices_is_transient(server: FakeOpenAI, provider: OpenAICompatibleProvider) -> None:
    body = server.completion_body(MODEL)
    body["choices"] = []
    server.body = body

    with pytest.raises(LLMTransientError, match="no choices"):
        provider.complete(_request())


# --------------------------------------------------------------------------- HTTP errors


@pytest.mark.parametrize("status", [500, 502, 503])
def test_5xx_is_transient(server: FakeOpenAI, provider: OpenAICompatibleProvider, status: int) -> None:
    server.status = status

    with pytest.raises(LLMTransientError) as info:
        provider.complete(_request())

    assert str(status) in str(info.value)
    assert len(server.received) == 1  # max_retries=0: the SDK must not retry on its own


def test_429_is_transient(server: FakeOpenAI, provider: OpenAICompatibleProvider) -> None:
    server.status = 429

    with pytest.raises(LLMTransientError) as info:
        provider.complete(_request())

    assert "429" in str(info.value)
    assert len(server.received) == 1


def test_401_is_permanent_and_mentions_the_key(
    server: FakeOpenAI, provider: OpenAICompatibleProvider
) -> None:
    server.status = 401

    with pytest.raises(LLMProviderError) as info:
        provider.complete(_request())

    assert not isinstance(info.value, LLMTransientError)
    assert "key" in str(info.value).lower()
    assert "401" in str(info.value)
    assert API_KEY not in str(info.value)  # the key itself is never echoed


def test_400_is_permanent_and_carries_the_server_message(
    server: FakeOpenAI, provider: OpenAICompatibleProvider
) -> None:
    server.status = 400
    server.body = {"error": {"message": "response_format is not supported", "type": "invalid_request_error"}}

    with pytest.raises(LLMProviderError) as info:
        provider.complete(_request(json_schema=SCHEMA))

    assert not isinstance(info.value, LLMTransientError)
    assert "400" in str(info.value)
    assert "response_format is not supported" in str(info.value)


@pytest.mark.parametrize("status", [403, 404, 422])
def test_other_4xx_are_permanent(server: FakeOpenAI, provider: OpenAICompatibleProvider, status: int) -> None:
    server.status = status

    with pytest.raises(LLMProviderError) as info:
        provider.complete(_request())

    assert not isinstance(info.value, LLMTransientError)
    assert str(status) in str(info.value)


# --------------------------------------------------------------------------- network failures


def test_slow_server_times_out_as_transient(server: FakeOpenAI, provider: OpenAICompatibleProvider) -> None:
    # The server holds its answer until the test releases it (or 30 s pass). A client that ignored
    # the timeout would wait for that answer and return it: no exception, and the answer was sent.
    server.delay_seconds = 30.0

    with pytest.raises(LLMTransientError) as info:
        provider.complete(_request(timeout_seconds=0.5))

    assert "did not answer within 0.5 s" in str(info.value)
    assert "fakeai" in str(info.value)
    assert server.answered == 0  # the client gave up while the server was still holding the answer
    assert len(server.received) == 1  # no hidden retry after the timeout


def test_nothing_listening_is_transient_and_names_the_base_url() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}/v1"

    for provider in _provider(base_url):
        with pytest.raises(LLMTransientError) as info:
            provider.complete(_request(timeout_seconds=5))

    assert base_url in str(info.value)
    assert "cannot reach" in str(info.value)
