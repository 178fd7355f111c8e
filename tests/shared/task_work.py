"""Task batches for the engine tests: picklable, each run leaves a line in a log, so tests count runs."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def runs(log_dir: Path, key: str) -> int:
    """How many times `key` was started (finished or not)."""
    path = log_dir / key.replace("|", "_")
    return len(path.read_text().splitlines()) if path.exists() else 0


@dataclass
class LoggedWork:
    """Logs each key's start; sleeps; fails or kills its own process on chosen keys' first runs."""

    log_dir: str
    sleep: float = 0.0
    fail_first: frozenset[str] = field(default_factory=frozenset)  # raise on the first run
    fail_always: frozenset[str] = field(default_factory=frozenset)
    die_first: frozenset[str] = field(default_factory=frozenset)  # os._exit on the first run
    tokens: int = 0  # reported as usage per key

    def __call__(self, keys: list[str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in keys:
            path = Path(self.log_dir) / key.replace("|", "_")
            with path.open("a") as log:
                log.write(f"{os.getpid()} {time.time()}\n")
            first = len(path.read_text().splitlines()) == 1
            if key in self.die_first and first:
                os._exit(3)  # the worker process dies mid-batch
            if self.sleep:
                time.sleep(self.sleep)
            if key in self.fail_always or (key in self.fail_first and first):
                out[key] = RuntimeError(f"{key} failed on purpose")
                continue
            out[key] = {"key": key, "pid": os.getpid(), "usage": {"tokens": self.tokens, "cost_usd": 0.0}}
        return out
