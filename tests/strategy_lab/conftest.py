"""Fixtures of the sandbox tests (test_strategy_sandbox.py, test_sandbox_escapes.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from stockdesk.strategy_lab.infrastructure.sandbox import process_sandbox


@pytest.fixture
def unchecked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Test-only: the sandbox runs what the template renders without the allowlist check."""
    monkeypatch.setattr(process_sandbox, "check_strategy_code", lambda code: None)


@pytest.fixture
def no_stray_workers() -> Iterator[None]:
    """Every session kills its worker: no sandbox process outlives a test (`usefixtures` it)."""
    yield
    assert not [p for p in Path("/proc").glob("[0-9]*") if _is_worker(p)]


def _is_worker(proc: Path) -> bool:
    try:
        command = (proc / "cmdline").read_bytes()
    except OSError:
        return False
    return b"sandbox/worker.py" in command and f"PPid:\t{os.getpid()}\n" in (proc / "status").read_text()
