"""Chat answers streamed as llama.cpp's server streams them, for the tests' stand-in servers.

The embedded provider reads its answers as streams (a cancel then frees the model's slot at the next
token). The shape below is what xllamacpp's server sent on 2026-11-29 for `stream: true` with
`stream_options.include_usage`: a chunk with the assistant role, the content in chunks, a chunk with
the finish reason and an empty delta, a chunk with no choices carrying `usage` (and llama.cpp's
`timings`), then `[DONE]`. Stdlib only: tests/faults/llm_server.py runs it in its own process.
"""

from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler
from typing import Any


def stream_of(completion: dict[str, Any], pieces: int = 1) -> list[str]:
    """A whole `chat.completion` body as the events of its stream (each `data:` line's payload)."""
    choice = completion["choices"][0]
    content = choice["message"].get("content") or ""
    head = {k: completion[k] for k in ("id", "created", "model") if k in completion}
    head["object"] = "chat.completion.chunk"

    def chunk(delta: dict[str, Any], finish: str | None) -> str:
        return json.dumps({**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    size = max(1, -(-len(content) // max(1, pieces)))
    parts = [content[start : start + size] for start in range(0, len(content), size)]
    last = {**head, "choices": [], "usage": completion.get("usage")}
    if "timings" in completion:
        last["timings"] = completion["timings"]
    return [
        chunk({"role": "assistant", "content": None}, None),
        *(chunk({"content": part}, None) for part in parts),
        chunk({}, choice.get("finish_reason") or "stop"),
        json.dumps(last),
        "[DONE]",
    ]


def cut(events: list[str], after: int) -> list[str]:
    """The stream stopped after its role chunk and `after` content chunks, with no end."""
    return events[: 1 + after]


def write_stream(handler: BaseHTTPRequestHandler, events: list[str], pause: float = 0.0) -> bool:
    """Send `events` as server-sent events, `pause` seconds apart; False when the client hung up
    (noticed, as llama.cpp notices it, when a write fails)."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Connection", "close")
    handler.end_headers()
    handler.close_connection = True
    try:
        for number, event in enumerate(events):
            if number > 1 and pause:  # the role chunk and the first token come together
                time.sleep(pause)
            handler.wfile.write(f"data: {event}\n\n".encode())
            handler.wfile.flush()
    except (BrokenPipeError, ConnectionResetError):
        return False
    return True
