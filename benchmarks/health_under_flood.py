"""Benchmark: `/api/v1/health` latency while 20 clients flood the server with cheap GETs and pages.

Target: p95 under 50 ms during the flood, on this 2-core machine. A real server process (uvicorn
over `tests.entrypoints.served_app`: sample store, scripted LLM, the policy `stockdesk serve`
uses) on a free port; /health is first timed idle, then while a separate process runs `--clients`
concurrent clients that each GET API reads and web pages in turn for `--seconds`. The flood runs in
its own process so that its threads do not slow down the prober's own clock readings.
Prints /health p50/p95/max idle and under the flood, and what the flood got (answers by status).

Usage: python benchmarks/health_under_flood.py [--clients 20] [--seconds 20]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.entrypoints: the real server

import httpx

TARGET_P95_MS = 50.0
CHEAP = ("/api/v1/stocks/600001.SH", "/api/v1/jobs", "/api/v1/strategy/runs", "/static/app.js")
PAGES = ("/", "/data", "/sessions", "/strategy", "/jobs")
PROBE_EVERY = 0.05  # seconds between two /health probes


def flood(url: str, clients: int, seconds: float, statuses: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    """`clients` threads, each with its own connection, asking cheap reads and pages in turn."""
    counts: Counter[int] = Counter()
    lock = threading.Lock()
    deadline = time.monotonic() + seconds
    paths = [*CHEAP, *PAGES]

    def client(offset: int) -> None:
        with httpx.Client(base_url=url, timeout=60) as http:
            i = offset
            while time.monotonic() < deadline:
                try:
                    status = http.get(paths[i % len(paths)]).status_code
                except httpx.HTTPError:
                    status = 0
                with lock:
                    counts[status] += 1
                i += 1

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    statuses.put(dict(counts))


def probe(url: str, until: threading.Event | float) -> list[float]:
    """/health latencies in ms, one probe every PROBE_EVERY s, on one kept-alive connection."""
    latencies = []
    with httpx.Client(base_url=url, timeout=30) as http:
        while not (until.is_set() if isinstance(until, threading.Event) else time.monotonic() > until):
            started = time.perf_counter()
            answer = http.get("/api/v1/health")
            elapsed = (time.perf_counter() - started) * 1000
            if answer.status_code != 200:
                raise SystemExit(f"/health answered {answer.status_code}: {answer.text[:200]}")
            latencies.append(elapsed)
            time.sleep(PROBE_EVERY)
    return latencies


def summary(name: str, latencies: list[float]) -> float:
    ordered = sorted(latencies)
    p50 = statistics.median(ordered)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    print(f"{name}: {len(ordered)} probes, p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {ordered[-1]:.1f} ms")
    return p95


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a server setting, e.g. api_page_concurrent=4",
    )
    args = parser.parse_args()
    settings = {f"STOCKDESK_{name.upper()}": value for name, _, value in (s.partition("=") for s in args.set)}

    from tests.entrypoints.server_process import free_port, running

    home = Path(tempfile.mkdtemp(prefix="stockdesk-flood-")) / "home"
    port = free_port()
    command = [sys.executable, "-m", "uvicorn", "--factory", "tests.entrypoints.served_app:create",
               "--host", "127.0.0.1", "--port", str(port)]  # fmt: skip
    print(f"load average before the server started: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with running(command, home, port, **settings) as server:
        with httpx.Client(base_url=server.url, timeout=60) as http:  # warm up: templates, caches
            for path in (*CHEAP, *PAGES):
                http.get(path)
        summary("/health idle", probe(server.url, time.monotonic() + 5))
        statuses: multiprocessing.Queue = multiprocessing.Queue()  # type: ignore[type-arg]
        flooding = (server.url, args.clients, args.seconds, statuses)
        worker = multiprocessing.Process(target=flood, args=flooding)
        worker.start()
        time.sleep(1.0)  # the flood is under way
        done = threading.Event()
        threading.Thread(target=lambda: (worker.join(), done.set()), daemon=True).start()
        p95 = summary(f"/health under a {args.clients}-client flood", probe(server.url, done))
        answered = statuses.get(timeout=30)
        total = sum(answered.values())
        by_status = ", ".join(f"{status}: {n}" for status, n in sorted(answered.items()))
        rate = total / args.seconds
        print(f"flood: {total} requests in {args.seconds:.0f} s ({rate:.0f}/s), by status {by_status}")
        print(f"load average after the flood: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        verdict = "met" if p95 < TARGET_P95_MS else "MISSED"
        print(f"target /health p95 < {TARGET_P95_MS:.0f} ms under the flood: {verdict}")


if __name__ == "__main__":
    main()
