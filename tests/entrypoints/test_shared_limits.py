"""Limits that hold across server processes, and /health that no request can block: real uvicorn
processes over one SQLite store (the scripted LLM answers slowly so that requests stay in flight).

Two `serve` workers on one database enforce one budget per key: the second is refused while the
first holds the key's one place in flight, that refusal costs none of the key's per-minute quota,
and once the first used the quota up the second refuses too. /health answers while every worker
thread of the server is busy with slow requests.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from sqlalchemy import text

from stockdesk.shared.db import Database
from stockdesk.shared.db.api_key_store import SqlApiKeyStore
from tests.api_support import early_in_a_minute
from tests.entrypoints.server_process import free_port, running

RESEARCH = "/api/v1/research/valuation-model"
QUERY = {"symbol": "600001.SH", "as_of": "2024-06-28"}
WORKER_THREADS = 40  # AnyIO's default thread pool, which runs the app's sync routes
HEALTH_BOUND = 10.0  # seconds: generous (a loaded machine); the slow requests take 20


def served(port: int) -> list[str]:
    return [sys.executable, "-m", "uvicorn", "--factory", "tests.entrypoints.served_app:create",
            "--host", "127.0.0.1", "--port", str(port)]  # fmt: skip


def sqlite_url(home: Path) -> str:
    return f"sqlite:///{home / 'stockdesk.db'}"


def new_key(url: str) -> str:
    database = Database(url)
    try:
        database.ensure_schema()
        return SqlApiKeyStore(database).create("tests")[1]
    finally:
        database.dispose()


def leases_held(url: str) -> int:
    """Requests in flight by the store's leases (of every process), those not lapsed."""
    database = Database(url)
    try:
        with database.engine.connect() as conn:
            query = text("SELECT COUNT(*) FROM access_leases WHERE expires_at > :now")
            return int(conn.execute(query, {"now": time.time()}).scalar_one())
    finally:
        database.dispose()


def wait_until(condition: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition was not reached in time"
        time.sleep(0.05)


def code(answer: httpx.Response) -> str:
    return str(answer.json()["error"]["code"])


def test_two_server_processes_on_one_database_enforce_one_budget_per_key(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    two_servers_share_one_budget(home, sqlite_url(home))


def two_servers_share_one_budget(home: Path, url: str) -> None:
    """Two server processes with their home in `home` and their store at `url` (tests.postgres
    runs this on PostgreSQL)."""
    key = new_key(url)
    bearer = {"Authorization": f"Bearer {key}"}
    limits = {"STOCKDESK_API_RATE_PER_MINUTE": "2", "STOCKDESK_API_MAX_CONCURRENT_PER_KEY": "1",
              "STOCKDESK_TEST_LLM_LATENCY": "3", "STOCKDESK_DATABASE_URL": url}  # fmt: skip
    first_port, second_port = free_port(), free_port()
    with (
        running(served(first_port), home, first_port, **limits) as first,
        running(served(second_port), home, second_port, **limits) as second,
    ):
        slow: list[httpx.Response] = []
        ask = lambda url: httpx.get(f"{url}{RESEARCH}", params=QUERY, headers=bearer, timeout=120)  # noqa: E731
        in_flight = threading.Thread(target=lambda: slow.append(ask(first.url)))
        early_in_a_minute(20)  # the steps below take about 10 s (see early_in_a_minute)
        in_flight.start()
        wait_until(lambda: leases_held(url) == 1)  # the first process holds the key's place
        busy = [ask(second.url) for _ in range(2)]
        assert [(b.status_code, code(b)) for b in busy] == [(429, "TOO_MANY_CONCURRENT")] * 2
        in_flight.join()
        assert slow[0].status_code == 200, slow[0].text
        assert ask(second.url).status_code == 200  # the refusals cost no quota: the second place is free
        spent = ask(first.url)
        assert spent.status_code == 429 and code(spent) == "RATE_LIMITED"  # the quota is the key's
        assert 1 <= int(spent.headers["Retry-After"]) <= 60
        assert leases_held(url) == 0  # every request gave its place back


def test_health_answers_while_every_worker_thread_is_busy(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    key = new_key(sqlite_url(home))
    roomy = {"STOCKDESK_API_RATE_PER_MINUTE": "1000", "STOCKDESK_API_MAX_CONCURRENT_PER_KEY": "100",
             "STOCKDESK_TEST_LLM_LATENCY": "20"}  # fmt: skip
    port = free_port()
    with running(served(port), home, port, **roomy) as server:
        answers: list[int] = []

        def research() -> None:
            bearer = {"Authorization": f"Bearer {key}"}
            answer = httpx.get(f"{server.url}{RESEARCH}", params=QUERY, headers=bearer, timeout=180)
            answers.append(answer.status_code)

        slow = [threading.Thread(target=research) for _ in range(WORKER_THREADS)]
        for thread in slow:
            thread.start()
        wait_until(
            lambda: leases_held(sqlite_url(home)) >= WORKER_THREADS
        )  # the pool's threads are all taken
        health = httpx.get(f"{server.url}/api/v1/health", timeout=HEALTH_BOUND)
        assert health.status_code == 200 and health.json()["status"] == "ok"
        assert answers == []  # the slow requests were all still running
        for thread in slow:
            thread.join()
        assert answers == [200] * len(slow)
