"""A tiny OpenAI-shaped chat server for the limit, retry and per-node model tests.

It answers `GET /health` and `POST /v1/chat/completions` over real HTTP on 127.0.0.1, so the real
`openai` SDK adapter talks to it. Each test scripts the first answers (status and headers, e.g. a
429 with Retry-After), and reads back when requests arrived and how many were in flight at once
(the provider's own view of whether a limit held). Importable by Ray workers and actors.
"""

from __future__ import annotations

import json
import os
import select
import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.llm_platform.sse import cut, stream_of, write_stream


@dataclass(frozen=True)
class Answer:
    """One scripted answer: an HTTP status and its headers (a 200 carries a normal completion)."""

    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()


@dataclass
class ChatServerState:
    content: str = '{"answer": "ok"}'
    prompt_tokens: int = 1000
    completion_tokens: int = 200
    latency_seconds: float = 0.0
    chunks: int = 1  # a streamed answer's content goes out in this many pieces ...
    chunk_seconds: float = 0.0  # ... this far apart, as a model writes its tokens
    cut_after: int | None = None  # a streamed answer stops after this many pieces, with no end
    script: list[Answer] = field(default_factory=list)  # consumed first; then plain 200s
    arrivals: list[float] = field(default_factory=list)  # time.monotonic() of each chat request
    hangups: list[float] = field(default_factory=list)  # when a client closed its connection mid-answer
    statuses: list[int] = field(default_factory=list)
    bodies: list[dict[str, Any]] = field(default_factory=list)  # each chat request's JSON body
    in_flight: int = 0
    max_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class ChatServer:
    """Start with `start()`, stop with `stop()`; `base_url` is the OpenAI base (ends in /v1)."""

    def __init__(self, script: Iterable[Answer] = (), **knobs: Any):
        self.state = ChatServerState(script=list(script), **knobs)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "start the server first"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> ChatServer:
        self._httpd = _QuietServer(("127.0.0.1", 0), _handler_for(self.state))
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None


class StandInModelServer:
    """Stands in for EmbeddedServer inside the per-node actor: starts a ChatServer lazily.

    Every start appends the actor's pid to `start_log`, a file the test reads: the count of
    lines is the count of servers started, whichever process started them.
    """

    def __init__(self, start_log: Path):
        self._start_log = start_log
        self._server: ChatServer | None = None
        self._lock = threading.Lock()

    def base_url(self) -> str:
        with self._lock:
            if self._server is None:
                self._server = ChatServer(content='{"answer": "stand-in"}').start()
                with self._start_log.open("a") as log:
                    log.write(f"{os.getpid()}\n")
            return self._server.base_url

    def restart_if_dead(self) -> bool:
        return False

    def stop(self) -> None:
        with self._lock:
            if self._server is not None:
                self._server.stop()
                self._server = None


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


def _handler_for(state: ChatServerState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self._send(200 if self.path == "/health" else 404, {"status": "ok"}, ())

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            with state.lock:
                state.arrivals.append(time.monotonic())
                state.bodies.append(body)
                answer = state.script.pop(0) if state.script else Answer()
                state.statuses.append(answer.status)
                state.in_flight += 1
                state.max_in_flight = max(state.max_in_flight, state.in_flight)
            gone = self._client_left_within(state.latency_seconds)
            with state.lock:  # before answering: a client's next call can only come after this
                state.in_flight -= 1
                if gone:  # as llama.cpp does, a client that hung up gets no answer
                    state.hangups.append(time.monotonic())
                    return
            if body.get("stream") and answer.status == 200:
                self._stream(body.get("model", "m"))
                return
            payload = _completion(state, body.get("model", "m")) if answer.status == 200 else _error(answer)
            self._send(answer.status, payload, answer.headers)

        def _stream(self, model: str) -> None:
            """The answer streamed in `state.chunks` pieces (tests.llm_platform.sse); a client that
            hung up is noticed, as llama.cpp notices it, when a write fails."""
            events = stream_of(_completion(state, model), state.chunks)
            if state.cut_after is not None:
                events = cut(events, state.cut_after)
            if not write_stream(self, events, state.chunk_seconds):
                with state.lock:
                    state.hangups.append(time.monotonic())

        def _client_left_within(self, seconds: float) -> bool:
            """Wait `seconds` (the answer's latency) watching the connection: True as soon as the
            client closes it (readable with nothing to read)."""
            deadline = time.monotonic() + seconds
            while (left := deadline - time.monotonic()) > 0:
                readable, _, _ = select.select([self.connection], [], [], min(left, 0.05))
                if readable and not self.connection.recv(1, socket.MSG_PEEK):
                    return True
            return False

        def _send(self, status: int, payload: dict[str, Any], headers: tuple[tuple[str, str], ...]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _completion(state: ChatServerState, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": state.content}, "finish_reason": "stop"}
        ],
        "usage": {
            "prompt_tokens": state.prompt_tokens,
            "completion_tokens": state.completion_tokens,
            "total_tokens": state.prompt_tokens + state.completion_tokens,
        },
    }


def _error(answer: Answer) -> dict[str, Any]:
    message = f"scripted {answer.status}"
    return {"error": {"message": message, "type": "rate_limit", "param": None, "code": None}}
