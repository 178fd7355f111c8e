"""Of each call's prompt, the tokens the model really evaluated and those it reused from its cache.

The llama.cpp answer below is byte for byte what the embedded server (xllamacpp) sent for the
second of two calls sharing a 250-token system prompt: `timings.cache_n` tokens came from the KV
cache and only `timings.prompt_n` were evaluated. It is served over real HTTP to the real `openai`
SDK adapter (tests/llm_platform/chat_server.py builds its own bodies, so it cannot send this one);
to the embedded provider, which asks for a stream, as llama.cpp streams it (tests/llm_platform/sse.py).
"""

from __future__ import annotations

import json
import re
import threading
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from rich.console import Console

from stockdesk.llm_platform.domain.dtos import (
    AuditedCall,
    ChatMessage,
    CompletionRequest,
    LLMCallRecord,
    TokenUsage,
)
from stockdesk.llm_platform.infrastructure.embedded.provider import EmbeddedProvider
from stockdesk.llm_platform.infrastructure.openai_compatible import OpenAICompatibleProvider
from stockdesk.llm_platform.infrastructure.persistence.repositories import SqlLLMStore
from stockdesk.llm_platform.presentation.cli import call_json, calls_table
from stockdesk.shared.db import Database
from tests.conftest import scripted_service
from tests.llm_platform.sse import stream_of, write_stream

LLAMA_CPP_ANSWER: dict[str, Any] = {
    "choices": [
        {
            "finish_reason": "stop",
            "index": 0,
            "message": {"role": "assistant", "content": '```json\n{"b": 2}\n```'},
        }
    ],
    "created": 1795865768,
    "model": "/root/.stockdesk/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    "system_fingerprint": "b0-unknown",
    "object": "chat.completion",
    "usage": {
        "completion_tokens": 11,
        "prompt_tokens": 265,
        "total_tokens": 276,
        "prompt_tokens_details": {"cached_tokens": 250},
    },
    "id": "chatcmpl-fF0jqC7SJZZuGBOfsgfQPsToShXz2w2x",
    "timings": {
        "cache_n": 250,
        "prompt_n": 15,
        "prompt_ms": 218.621,
        "prompt_per_token_ms": 14.574733333333334,
        "prompt_per_second": 68.61188998312147,
        "predicted_n": 11,
        "predicted_ms": 295.927,
        "predicted_per_token_ms": 29.5927,
        "predicted_per_second": 33.79211765063681,
    },
}


def openai_answer(usage: dict[str, Any]) -> dict[str, Any]:
    """A remote OpenAI-compatible API's answer: no `timings`, only `usage`."""
    body = {k: v for k, v in LLAMA_CPP_ANSWER.items() if k != "timings"}
    return {**body, "usage": usage}


class AnswerServer:
    """Answers every chat request with `body` and keeps the request bodies it received."""

    def __init__(self, body: dict[str, Any]):
        self.body = body
        self.received: list[dict[str, Any]] = []
        state = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                state.received.append(json.loads(self.rfile.read(length) or b"{}"))
                if state.received[-1].get("stream"):  # the embedded provider's way
                    write_stream(self, stream_of(state.body))
                    return
                data = json.dumps(state.body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02})

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> AnswerServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


REQUEST = CompletionRequest(
    messages=[ChatMessage(role="system", content="rules"), ChatMessage(role="user", content="hi")]
)


def complete_against(body: dict[str, Any]) -> TokenUsage:
    with AnswerServer(body) as server:
        provider = OpenAICompatibleProvider(name="p", base_url=server.base_url, model="m", api_key=None)
        try:
            return provider.complete(REQUEST).usage
        finally:
            provider.close()


def test_llama_cpp_timings_say_what_was_evaluated_and_what_came_from_the_cache() -> None:
    usage = complete_against(LLAMA_CPP_ANSWER)
    assert usage == TokenUsage(
        prompt_tokens=265, completion_tokens=11, prompt_tokens_evaluated=15, prompt_tokens_cached=250
    )


def test_timings_win_over_usage_details_when_they_disagree() -> None:
    """llama.cpp's own counters are the measurement; the usage block is derived from them."""
    body = {**LLAMA_CPP_ANSWER, "timings": {**LLAMA_CPP_ANSWER["timings"], "prompt_n": 40, "cache_n": 225}}
    usage = complete_against(body)
    assert (usage.prompt_tokens_evaluated, usage.prompt_tokens_cached) == (40, 225)


def test_an_api_reporting_cached_tokens_gives_the_rest_as_evaluated() -> None:
    usage = complete_against(
        openai_answer(
            {
                "prompt_tokens": 2006,
                "completion_tokens": 300,
                "total_tokens": 2306,
                "prompt_tokens_details": {"cached_tokens": 1920},
            }
        )
    )
    assert (usage.prompt_tokens, usage.prompt_tokens_evaluated, usage.prompt_tokens_cached) == (
        2006,
        86,
        1920,
    )


def test_an_api_that_does_not_say_leaves_both_unknown_not_zero() -> None:
    usage = complete_against(openai_answer({"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55}))
    assert usage.prompt_tokens == 50
    assert usage.prompt_tokens_evaluated is None and usage.prompt_tokens_cached is None


class FixedServer:
    """A ModelServer at a fixed URL (the embedded provider's view of its llama.cpp server)."""

    def __init__(self, url: str):
        self.url = url

    def base_url(self) -> str:
        return self.url

    def restart_if_dead(self) -> bool:
        return False

    def stop(self) -> None:
        pass


def test_the_embedded_provider_asks_the_server_to_keep_its_prompt_cache() -> None:
    with AnswerServer(LLAMA_CPP_ANSWER) as server:
        provider = EmbeddedProvider(FixedServer(server.base_url))
        usage = provider.complete(REQUEST.model_copy(update={"repetition_penalty": 0.8})).usage
        provider.close()
    assert server.received[0]["cache_prompt"] is True
    assert server.received[0]["dry_multiplier"] == 0.8  # the other server-specific field still goes
    assert (usage.prompt_tokens_evaluated, usage.prompt_tokens_cached) == (15, 250)


def test_a_call_and_its_repair_add_up_only_what_is_known() -> None:
    measured = TokenUsage(prompt_tokens=10, prompt_tokens_evaluated=4, prompt_tokens_cached=6)
    assert (measured + measured).prompt_tokens_evaluated == 8
    unknown = measured + TokenUsage(prompt_tokens=10)
    assert unknown.prompt_tokens == 20
    assert unknown.prompt_tokens_evaluated is None and unknown.prompt_tokens_cached is None


def test_the_audit_row_and_llm_calls_show_evaluated_and_cached(database: Database) -> None:
    with AnswerServer(LLAMA_CPP_ANSWER) as server:
        local = EmbeddedProvider(FixedServer(server.base_url), name="local")
        service = scripted_service(("local", local), database=database)  # type: ignore[arg-type]
        service.generate("hi", "rules", caller="research.valuation_modeler")
        service.close()
    audit = SqlLLMStore(database)
    remote = {"run_id": "r", "alias": "remote", "provider": "remote", "model": "m", "prompt_hash": "h"}
    audit.record(
        LLMCallRecord(**remote, caller="judge.verdict", prompt_tokens=300, completion_tokens=20, status="ok")
    )
    newest, embedded = audit.recent(2)
    assert (embedded.prompt_tokens_evaluated, embedded.prompt_tokens_cached) == (15, 250)
    assert newest.prompt_tokens_evaluated is None and newest.prompt_tokens_cached is None
    assert call_json(embedded)["prompt_tokens_evaluated"] == 15
    assert call_json(newest)["prompt_tokens_cached"] is None

    console = Console(width=200, record=True)
    console.print(calls_table([newest, embedded]))
    lines = console.export_text().splitlines()
    header = next(line for line in lines if "purpose" in line)
    assert _cells(header)[4:8] == ["tokens", "evaluated", "cached", "seconds"]
    rows = {_cells(line)[1]: _cells(line) for line in lines if "judge." in line or "research." in line}
    assert rows["research.valuation_modeler"][4:7] == ["276", "15", "250"]  # 265 prompt + 11 output
    assert rows["judge.verdict"][4:7] == ["320", "—", "—"]  # the provider did not say


def _cells(line: str) -> list[str]:
    """The cells of one line of a Rich table (heavy bars in the header, light ones in the rows)."""
    return [cell.strip() for cell in re.split("[│┃]", line)[1:-1]]


def test_the_table_has_the_columns_even_for_old_rows() -> None:
    old = AuditedCall(
        call_id=None,
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        run_id="r",
        model="m",
        provider="p",
        purpose="x",
        status="ok",
        tokens=3,
        prompt_tokens=2,
        completion_tokens=1,
        seconds=0.1,
    )
    console = Console(width=200, record=True)
    console.print(calls_table([old]))
    row = next(line for line in console.export_text().splitlines() if "│ x " in line)
    assert _cells(row)[4:8] == ["3", "—", "—", "0.1"]
