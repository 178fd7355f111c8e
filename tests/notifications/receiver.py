"""A local HTTP receiver for the webhook tests: it records every request and answers from a script."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Received:
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


@dataclass
class Receiver:
    base: str = ""
    requests: list[Received] = field(default_factory=list)
    answers: dict[str, list[tuple[int, str]]] = field(default_factory=dict)  # path -> queued answers
    default: dict[str, tuple[int, str]] = field(default_factory=dict)  # path -> answer when none queued

    def answer(self, path: str, *answers: tuple[int, str]) -> None:
        self.answers.setdefault(path, []).extend(answers)

    def on(self, path: str) -> list[Received]:
        return [r for r in self.requests if r.path == path]


@contextmanager
def receiver() -> Iterator[Receiver]:
    state = Receiver()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            parts = urlsplit(self.path)
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with lock:
                state.requests.append(
                    Received(
                        parts.path, parse_qs(parts.query), dict(self.headers), json.loads(raw or b"null")
                    )
                )
                queued = state.answers.get(parts.path) or []
                status, body = queued.pop(0) if queued else state.default.get(parts.path, (200, "{}"))
            data = body.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:  # quiet
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
