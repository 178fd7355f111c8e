"""The web UI's file import on a real server process: bodies are streamed to a spooled temporary file,
never held whole in memory; at most two uploads are received at once (a third gets 429
UPLOADS_BUSY); a body that stops arriving is cut with 408 and gives its place back.

Memory is read from /proc/<pid>/status (VmRSS, and VmHWM, the peak, reset through clear_refs
before the uploads): a resource assertion, not a timing one.
"""

from __future__ import annotations

import socket
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.entrypoints.server_process import Server, free_port, running

UPLOAD_BYTES = 60_000_000
CEILING_MB = 200  # the server's peak memory may grow by this much over the three uploads
IDLE_SECONDS = 8  # STOCKDESK_API_BODY_IDLE_SECONDS of the cap test's server
BOUNDARY = "stockdesk-test-boundary"

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")


def served(port: int) -> list[str]:
    return [sys.executable, "-m", "uvicorn", "--factory", "tests.entrypoints.served_app:create",
            "--host", "127.0.0.1", "--port", str(port)]  # fmt: skip


def memory_mb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) // 1024
    raise AssertionError(f"{field} not in /proc/{pid}/status")


def upload(server: Server, name: str, content: object) -> httpx.Response:
    """The import form as a browser sends it: an SEC folder import of one file (`content`: bytes or
    an open file, streamed)."""
    return httpx.post(
        f"{server.url}/data/import", data={"kind": "sec"}, files={"file": (name, content)}, timeout=300
    )


def rejected_as_not_sec(answer: httpx.Response) -> bool:
    """The import ran and refused the file for what it is: the importer's own 400."""
    return answer.status_code == 400 and "companyfacts" in answer.text


def test_three_60_mb_uploads_at_once_stay_under_a_memory_ceiling(tmp_path: Path) -> None:
    big = tmp_path / "upload.bin"
    with big.open("wb") as out:
        block = bytes(range(256)) * 4096  # 1 MiB
        for _ in range(UPLOAD_BYTES // len(block) + 1):
            out.write(block)
    port = free_port()
    with running(served(port), tmp_path / "home", port) as server:
        pid = server.process.pid
        assert rejected_as_not_sec(upload(server, "warm-up.bin", b"x" * 100_000))  # the path, warmed up
        baseline = memory_mb(pid, "VmRSS")
        Path(f"/proc/{pid}/clear_refs").write_text("5")  # VmHWM from here on
        answers: list[httpx.Response] = []

        def send() -> None:
            with big.open("rb") as content:
                answers.append(upload(server, "upload.bin", content))

        senders = [threading.Thread(target=send) for _ in range(3)]
        for sender in senders:
            sender.start()
        for sender in senders:
            sender.join()
        peak = memory_mb(pid, "VmHWM")
        busy = [a for a in answers if a.status_code == 429]
        assert len(answers) == 3 and sum(rejected_as_not_sec(a) for a in answers) + len(busy) == 3
        assert sum(rejected_as_not_sec(a) for a in answers) >= 2
        assert all('data-code="UPLOADS_BUSY"' in a.text and a.headers["Retry-After"] for a in busy)
        assert peak - baseline < CEILING_MB, f"peak {peak} MB over a baseline of {baseline} MB"
        assert not list((tmp_path / "home" / "uploads").glob("import-*"))  # nothing left behind


def stalled_upload(port: int) -> socket.socket:
    """An upload of 10 MB announced, 1 MB of it sent, then nothing more."""
    head = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="kind"\r\n\r\nsec\r\n'
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    request = (
        f"POST /data/import HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 10000000\r\n"
        f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n\r\n"
    ).encode()
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    sock.sendall(request + head + b"\0" * 1_000_000)
    return sock


def status_line(sock: socket.socket) -> str:
    answer = b""
    while b"\r\n" not in answer:
        chunk = sock.recv(4096)
        if not chunk:
            break
        answer += chunk
    return answer.split(b"\r\n", 1)[0].decode("latin-1")


def test_a_third_upload_is_refused_while_two_are_received_and_a_stalled_one_is_cut(tmp_path: Path) -> None:
    port = free_port()
    idle = {"STOCKDESK_API_BODY_IDLE_SECONDS": str(IDLE_SECONDS)}
    with running(served(port), tmp_path / "home", port, **idle) as server:
        stalled = [stalled_upload(port) for _ in range(2)]
        deadline = time.monotonic() + IDLE_SECONDS / 2
        refused = upload(server, "third.bin", b"x" * 1000)
        while refused.status_code != 429 and time.monotonic() < deadline:  # until both are received
            time.sleep(0.2)  # (each upload that got through counts against the per-minute rate)
            refused = upload(server, "third.bin", b"x" * 1000)
        assert refused.status_code == 429 and 'data-code="UPLOADS_BUSY"' in refused.text, refused.text[-500:]
        assert int(refused.headers["Retry-After"]) > 0
        for sock in stalled:  # each is cut once its body stopped arriving for IDLE_SECONDS
            with sock:
                assert status_line(sock) == "HTTP/1.1 408 Request Timeout"
        assert rejected_as_not_sec(upload(server, "after.bin", b"x" * 1000))  # their places are free again
