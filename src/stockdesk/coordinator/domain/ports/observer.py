"""Who wants to know, live, when a node starts and ends (the CLI's live view)."""

from __future__ import annotations

from typing import Protocol

from stockdesk.coordinator.domain.dtos.session import NodeExecution


class INodeObserver(Protocol):
    def __call__(self, event: NodeExecution) -> None: ...
