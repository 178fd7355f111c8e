"""A stand-in for an OpenAI-compatible model server (the embedded llama.cpp one, or a remote API),
run as its own process so that a test can SIGKILL it mid-analysis like a crashed model.

    python llm_server.py PORT PLAN_JSON LOG_PATH

Stdlib only (it starts in milliseconds; the stream writer it shares, tests/llm_platform/sse.py, is
stdlib too). It answers `/v1/chat/completions` with the answer the plan
holds for the request's JSON-schema name, and `/health` with 200. The plan also scripts faults:

- `fail`: {schema or "*": {"status": 503, "times": k}}: the first k matching requests (every one
  when k is null) answer that status;
- `delay`: {schema or "*": seconds} before answering;
- `hang_after`: n: every request after the n-th is never answered (a model that stopped);
- `gather`: n: the first n requests are held until all n have arrived (callers provably overlap).

Each request is logged (one JSON line, flushed, before any delay or hang) so that the test can
count what the server saw and know when a request is in flight.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: the repository root
from tests.llm_platform.sse import stream_of, write_stream


class Plan:
    def __init__(self, data: dict[str, Any], log_path: Path):
        self.answers: dict[str, Any] = data.get("answers", {})
        self.fail: dict[str, dict[str, Any]] = data.get("fail", {})
        self.delay: dict[str, float] = data.get("delay", {})
        self.hang_after: int | None = data.get("hang_after")
        self.gather: int = data.get("gather", 0)
        self.gathered = threading.Condition()
        self.log_path = log_path
        self.seen = 0
        self.failed: dict[str, int] = {}
        self.lock = threading.Lock()

    def admit(self, schema: str) -> tuple[int, int]:
        """(request number, status to answer); logs the request."""
        with self.lock:
            self.seen += 1
            number, status = self.seen, 200
            rule_key = schema if schema in self.fail else "*" if "*" in self.fail else None
            if rule_key is not None:
                rule = self.fail[rule_key]
                used = self.failed.get(rule_key, 0)
                if rule.get("times") is None or used < rule["times"]:
                    self.failed[rule_key] = used + 1
                    status = int(rule["status"])
            with self.log_path.open("a", encoding="utf-8") as log:
                log.write(json.dumps({"n": number, "schema": schema, "status": status}) + "\n")
        if number <= self.gather:
            with self.gathered:
                self.gathered.notify_all()
                self.gathered.wait_for(lambda: self.seen >= self.gather, timeout=60)
        return number, status


def completion(content: str, model: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{time.time_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150},
    }


def handler(plan: Plan) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: Any) -> None:  # quiet: the plan's log is the record
            pass

        def send(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body, ensure_ascii=False).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self.send(200 if self.path.rstrip("/").endswith("health") else 404, {"status": "ok"})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("name", "response")
            number, status = plan.admit(schema)
            if plan.hang_after is not None and number > plan.hang_after:
                while True:  # a model that stopped answering: only a kill ends this
                    time.sleep(60)
            delay = plan.delay.get(schema, plan.delay.get("*", 0.0))
            if delay:
                time.sleep(delay)
            if status != 200:
                self.send(status, {"error": {"message": f"scripted {status}", "type": "server_error"}})
                return
            answer = completion(
                json.dumps(plan.answers.get(schema, {}), ensure_ascii=False), body.get("model", "")
            )
            if body.get("stream"):  # the embedded provider asks for its answers as llama.cpp streams them
                write_stream(self, stream_of(answer))
                return
            self.send(200, answer)

    return Handler


def main() -> None:
    port, plan_path, log_path = int(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    plan = Plan(json.loads(plan_path.read_text(encoding="utf-8")), log_path)
    server = ThreadingHTTPServer(("127.0.0.1", port), handler(plan))
    server.daemon_threads = True
    print("ready", flush=True)  # the parent waits for this line
    server.serve_forever()


if __name__ == "__main__":
    main()
