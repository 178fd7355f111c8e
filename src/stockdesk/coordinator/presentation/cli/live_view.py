"""The Rich live view of a running analysis: one line per node and a running LLM-call counter."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from stockdesk.coordinator.application import NodeExecution, NodeStatus

STYLE = {
    NodeStatus.WAITING: "dim",
    NodeStatus.RUNNING: "yellow",
    NodeStatus.DONE: "green",
    NodeStatus.FAILED: "red",
    NodeStatus.SKIPPED: "dim",
    NodeStatus.REUSED: "cyan",
}


class LiveView:
    """Fed by the coordinator's node events (any thread); rendered by Rich's refresh thread."""

    def __init__(self, nodes: list[str], usage: Callable[[str], tuple[int, int]]):
        self._events: dict[str, NodeExecution] = {
            n: NodeExecution(node=n, status=NodeStatus.WAITING) for n in nodes
        }
        self._usage = usage
        self._lock = threading.Lock()
        self._started = time.perf_counter()
        self.session_id: str | None = None

    def __call__(self, event: NodeExecution) -> None:
        with self._lock:
            self._events[event.node] = event

    def _seconds(self, event: NodeExecution) -> str:
        if event.seconds is not None:
            return f"{event.seconds:.1f}s"
        if event.status is NodeStatus.RUNNING and event.started_at is not None:
            return f"{(datetime.now(UTC) - event.started_at).total_seconds():.0f}s"
        return ""

    def __rich__(self) -> RenderableType:
        table = Table("node", "status", "time", "note", box=None, pad_edge=False)
        with self._lock:
            events = list(self._events.values())
        for event in events:
            note = (event.error or "")[:80]
            table.add_row(
                event.node, Text(event.status.value, STYLE[event.status]), self._seconds(event), note
            )
        calls, tokens = self._usage(self.session_id) if self.session_id else (0, 0)
        elapsed = time.perf_counter() - self._started
        footer = Text(f"LLM calls {calls} · tokens {tokens:,} · elapsed {elapsed:.0f}s", style="bold")
        return Group(table, footer)
