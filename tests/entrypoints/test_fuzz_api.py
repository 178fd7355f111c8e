"""Schemathesis over the OpenAPI schema against a real server process (scripted LLM, sample store).

0 server errors and 0 contract failures (tests/entrypoints/schemathesis.toml lists the rules across
fields that the schema cannot express); `/api/v1/health` answers every poll with 200 all along
while the spending routes are fuzzed (within a bound generous enough for a loaded 2-core machine:
how fast it answers under load is benchmarks/health_under_flood.py's to measure, not a test's);
SIGTERM then stops the server within seconds, and a strategy run it was working on can be resumed
by the next server.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from stockdesk.shared.db import Database
from stockdesk.shared.db.api_key_store import SqlApiKeyStore
from tests.entrypoints.server_process import environment, free_port, running

pytest.importorskip("schemathesis")
CONFIG = Path(__file__).with_name("schemathesis.toml")
HEALTH_WITHIN = 10.0  # seconds: an answer later than this counts as a failure (a hung /health)
STOP_WITHIN = 15.0


def served(port: int) -> list[str]:
    return [sys.executable, "-m", "uvicorn", "--factory", "tests.entrypoints.served_app:create",
            "--host", "127.0.0.1", "--port", str(port), "--timeout-graceful-shutdown", "5"]  # fmt: skip


class HealthWatch(threading.Thread):
    """Asks /health every quarter second; keeps every error, answer other than 200 and wait beyond
    HEALTH_WITHIN (one slow poll on a busy machine is not a failure; no answer at all is)."""

    def __init__(self, url: str):
        super().__init__(daemon=True)
        self.url = url
        self.stop = threading.Event()
        self.asked = 0
        self.problems: list[str] = []

    def run(self) -> None:
        while not self.stop.wait(0.25):
            self.asked += 1
            try:
                answer = httpx.get(f"{self.url}/api/v1/health", timeout=HEALTH_WITHIN)
                if answer.status_code != 200:
                    self.problems.append(f"status {answer.status_code}")
            except httpx.HTTPError as exc:
                self.problems.append(f"{type(exc).__name__}: {exc}")


def test_schemathesis_finds_no_failure_and_health_stays_up(tmp_path: Path) -> None:
    home = tmp_path / "home"
    database = Database(f"sqlite:///{home / 'stockdesk.db'}")
    database.ensure_schema()
    _, key = SqlApiKeyStore(database).create("fuzzer")
    database.dispose()
    port = free_port()
    limits = {  # the fuzzer asks far more than a client would: no route's limit may refuse it
        f"STOCKDESK_API_{name}": value
        for name, value in {"RATE_PER_MINUTE": "100000", "MAX_CONCURRENT_PER_KEY": "100",
                            "CHEAP_PER_MINUTE": "100000", "PAGE_PER_MINUTE": "100000",
                            "BACKTEST_PER_MINUTE": "100000", "BACKTEST_CONCURRENT": "100"}.items()
    }  # fmt: skip
    with running(served(port), home, port, **limits) as server:
        watch = HealthWatch(server.url)
        watch.start()
        fuzz = subprocess.run(
            [sys.executable, "-m", "schemathesis.cli", "--config-file", str(CONFIG), "run",
             f"{server.url}/api/v1/openapi.json", "-H", f"Authorization: Bearer {key}", "--checks", "all",
             "--max-examples", "10", "--workers", "1", "--seed", "17"],
            capture_output=True, text=True, timeout=900, env=environment(home), cwd=tmp_path, check=False,
        )  # fmt: skip
        watch.stop.set()
        watch.join()
        report = fuzz.stdout[-6000:]
        assert fuzz.returncode == 0, report
        assert "Failures:" not in report and "server error" not in report.lower(), report
        schema = httpx.get(f"{server.url}/api/v1/openapi.json", timeout=10).json()
        operations = sum(len(methods) for methods in schema["paths"].values())
        assert f"Tested: {operations}" in report  # every operation of the schema ran
        assert watch.asked > 10 and watch.problems == [], watch.problems
        assert server.process.poll() is None  # still serving after the fuzzer


def test_sigterm_stops_within_seconds_and_the_run_resumes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    port = free_port()
    slow = {"STOCKDESK_TEST_LLM_LATENCY": "0.5"}
    with running(served(port), home, port, **slow) as server:
        started = httpx.post(f"{server.url}/api/v1/strategy/runs", json={"iterations": 20, "max_attempts": 1},
                             headers={"Authorization": f"Bearer {_key(home)}"})  # fmt: skip
        assert started.status_code == 202, started.text
        run_id = started.json()["id"]
        _wait_for(
            lambda: len(httpx.get(f"{server.url}/api/v1/strategy/runs/{run_id}").json()["iterations"]) >= 1
        )
        server.stop(STOP_WITHIN)
    with running(served(port), home, port) as server:
        stored = httpx.get(f"{server.url}/api/v1/strategy/runs/{run_id}").json()
        assert stored["status"] in ("interrupted", "running") and 1 <= len(stored["iterations"]) < 20
        resumed = httpx.post(f"{server.url}/api/v1/jobs/{run_id}/resume",
                             headers={"Authorization": f"Bearer {_key(home)}"})  # fmt: skip
        assert resumed.status_code == 202, resumed.text
        done = len(stored["iterations"])
        _wait_for(
            lambda: len(httpx.get(f"{server.url}/api/v1/strategy/runs/{run_id}").json()["iterations"]) > done
        )


def _key(home: Path) -> str:
    database = Database(f"sqlite:///{home / 'stockdesk.db'}")
    try:
        database.ensure_schema()
        return SqlApiKeyStore(database).create("test")[1]
    finally:
        database.dispose()


def _wait_for(condition, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.2)
