"""A real server process for the tests that need one: started, waited for, stopped with SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def environment(home: Path, **extra: str) -> dict[str, str]:
    """The server's environment: its own home, and this checkout's `src` and tests on the path (a
    worktree that shares another checkout's virtualenv would otherwise serve that checkout's code)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("STOCKDESK_")}
    env.update(STOCKDESK_HOME=str(home), PYTHONPATH=os.pathsep.join([str(REPO / "src"), str(REPO)]), **extra)
    return env


def stockdesk(home: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "stockdesk", *args],
        capture_output=True, text=True, timeout=120, env=environment(home, **extra), cwd=REPO, check=False,
    )  # fmt: skip


class Server:
    def __init__(self, process: subprocess.Popen[str], port: int, log: Path):
        self.process = process
        self.url = f"http://127.0.0.1:{port}"
        self.log = log

    def stop(self, timeout: float) -> float:
        """SIGTERM; returns the seconds the process took to exit (raises if it did not)."""
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=timeout)
        return time.monotonic() - started

    def output(self) -> str:
        """What the server printed (a file, not a pipe: a full pipe would stall the server)."""
        return self.log.read_text(encoding="utf-8", errors="replace")


@contextmanager
def running(command: Sequence[str], home: Path, port: int, **extra: str) -> Iterator[Server]:
    home.mkdir(parents=True, exist_ok=True)
    log = home / f"server-{port}-{time.monotonic_ns()}.out"
    with log.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(
            list(command),
            env=environment(home, **extra),
            cwd=REPO,
            text=True,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = Server(process, port, log)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if process.poll() is not None:
                raise RuntimeError(
                    f"server exited at start: {process.stdout.read() if process.stdout else ''}"
                )
            try:
                if httpx.get(f"{server.url}/api/v1/health", timeout=2.0).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("server did not answer /api/v1/health in time")
            time.sleep(0.2)
        yield server
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
