"""Process helpers of the fault tests: a model server to kill, background work, child environments."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SERVER_SCRIPT = Path(__file__).parent / "llm_server.py"
REPO = Path(__file__).resolve().parents[2]
# one schema-valid answer per agent, by the schema it asks for (the coordinator tests' script)
ANSWERS = json.loads((REPO / "tests/coordinator/fixtures/scripted_answers.json").read_text(encoding="utf-8"))
WAIT_SECONDS = 60  # a guard against hanging forever, never a timing assertion


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.02)


class ModelServer:
    """tests/faults/llm_server.py in a subprocess on a fixed port: start, SIGKILL, start again."""

    def __init__(self, folder: Path, name: str = "model"):
        self.port = free_port()
        self.folder = folder
        self.name = name
        self.log = folder / f"{name}-requests.jsonl"
        self.process: subprocess.Popen[str] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, **plan: Any) -> ModelServer:
        plan_path = self.folder / f"{self.name}-plan.json"
        plan_path.write_text(json.dumps({"answers": ANSWERS, **plan}, ensure_ascii=False), encoding="utf-8")
        self.process = subprocess.Popen(
            [sys.executable, str(SERVER_SCRIPT), str(self.port), str(plan_path), str(self.log)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        assert self.process.stdout.readline().strip() == "ready", "the model server did not start"
        return self

    def kill(self) -> None:
        """SIGKILL, like the OOM killer: no goodbye to the open connections."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.process = None

    def requests(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]

    def count(self, schema: str) -> int:
        return sum(1 for r in self.requests() if r["schema"] == schema)


class Background:
    """Run `work()` in a thread; `result()` joins it (bounded) and re-raises what it raised."""

    def __init__(self, work: Callable[[], Any]):
        self._value: Any = None
        self._error: BaseException | None = None

        def run() -> None:
            try:
                self._value = work()
            except BaseException as exc:  # handed to the test thread
                self._error = exc

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def result(self) -> Any:
        self._thread.join(WAIT_SECONDS)
        assert not self._thread.is_alive(), "the work hung"
        if self._error is not None:
            raise self._error
        return self._value


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment of a `python -m stockdesk` child: this test's home, the repo on the path."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "src")]), **extra}
    env["COLUMNS"] = "200"
    return env
