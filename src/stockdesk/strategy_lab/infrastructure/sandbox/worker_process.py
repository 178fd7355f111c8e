"""The parent's handle on one sandbox worker: start it, hand it a job, wait with a deadline, kill it."""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from stockdesk.strategy_lab.infrastructure.sandbox.layers import SandboxLayer, decode_layers
from stockdesk.strategy_lab.infrastructure.sandbox.worker import HEADER, JOB, READY, write_frame

WORKER = Path(__file__).with_name("worker.py")
STARTUP_SECONDS = 120.0  # python + pandas import on a busy 2-core machine, with room to spare
PROBE_SECONDS = 60.0  # python without pandas, one probe child


class WorkerTimeoutError(Exception):
    """No answer before the deadline: the worker and everything it started were killed."""


class WorkerGoneError(Exception):
    """The worker ended or broke the protocol."""


def probe_layers(limits: Mapping[str, Any]) -> list[SandboxLayer]:
    """The layers a strategy process gets here: `worker.py --layers` confines one child and reports.

    Started as a worker is (`python -I`, env={}, an empty directory), without importing pandas.
    """
    directory = tempfile.mkdtemp(prefix="stockdesk-sandbox-")
    try:
        completed = subprocess.run(
            [sys.executable, "-I", str(WORKER), "--layers", json.dumps(dict(limits))],
            capture_output=True,
            env={},
            cwd=directory,
            timeout=PROBE_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise WorkerTimeoutError(f"the sandbox probe gave no answer in {PROBE_SECONDS:g} s") from exc
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    reply = completed.stdout
    kind, length = HEADER.unpack(reply[: HEADER.size]) if len(reply) >= HEADER.size else (b"", 0)
    if completed.returncode != 0 or kind != READY:
        error = completed.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
        raise WorkerGoneError(f"the sandbox probe failed (exit {completed.returncode}): {error[0]}")
    return decode_layers(reply[HEADER.size : HEADER.size + length])


class WorkerProcess:
    """`python -I worker.py` with env={}, cwd an empty directory, in its own process group.

    `layers` are the sandbox layers its strategies get (the worker's probe, sent with READY).
    """

    def __init__(self, limits: Mapping[str, Any]):
        self._directory = tempfile.mkdtemp(prefix="stockdesk-sandbox-")
        self._closed = False
        self._process = subprocess.Popen(
            [sys.executable, "-I", str(WORKER), json.dumps(dict(limits))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={},
            cwd=self._directory,
            start_new_session=True,  # one process group: a kill reaches the strategy's children too
            close_fds=True,
        )
        try:
            kind, payload = self._receive(time.monotonic() + STARTUP_SECONDS)
        except (WorkerTimeoutError, WorkerGoneError):
            self.close()
            raise
        if kind != READY:
            self.close()
            raise WorkerGoneError(f"unexpected first reply {kind!r}")
        try:
            self.layers = decode_layers(payload)
        except ValueError as exc:
            self.close()
            raise WorkerGoneError(str(exc)) from exc

    def run(self, request: bytes, timeout_seconds: float) -> tuple[bytes, bytes]:
        """One job; the reply's kind and payload. Raises WorkerTimeoutError or WorkerGoneError."""
        assert self._process.stdin is not None
        try:
            write_frame(self._process.stdin.fileno(), JOB, request)
        except OSError as exc:
            self.close()
            raise WorkerGoneError(f"the worker stopped reading: {exc}") from exc
        return self._receive(time.monotonic() + timeout_seconds)

    def close(self) -> None:
        """Kill the whole group (the worker is idle or must die), reap it, remove its directory.

        The directory may still hold the directory of a strategy killed with the worker.
        """
        if self._closed:
            return  # reaped: its pid, hence the group id, may already belong to someone else
        self._closed = True
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._process.pid, signal.SIGKILL)
        self._process.wait()
        for stream in (self._process.stdin, self._process.stdout):
            if stream is not None:
                stream.close()
        shutil.rmtree(self._directory, ignore_errors=True)

    @property
    def alive(self) -> bool:
        return not self._closed and self._process.poll() is None

    def _receive(self, deadline: float) -> tuple[bytes, bytes]:
        header = self._read(HEADER.size, deadline)
        kind, length = HEADER.unpack(header)
        return kind, self._read(length, deadline)

    def _read(self, size: int, deadline: float) -> bytes:
        assert self._process.stdout is not None
        fd, chunks, missing = self._process.stdout.fileno(), [], size
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        while missing:
            remaining_ms = max(0, int((deadline - time.monotonic()) * 1000))
            if not poller.poll(remaining_ms):
                self.close()
                raise WorkerTimeoutError("no answer before the deadline")
            chunk = os.read(fd, min(missing, 1 << 20))
            if not chunk:
                self.close()
                raise WorkerGoneError("the worker ended")
            chunks.append(chunk)
            missing -= len(chunk)
        return b"".join(chunks)
