"""The sandbox's layers as the parent sees them: what a strategy process got on this machine.

The worker reports them (worker.py's probe, confinement.py's steps); `stockdesk doctor` prints them
through `sandbox_layers()` (the package's `__init__`), and the first worker a process starts logs
each missing one once, so that a strategy run on a machine without namespaces or seccomp says so.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass

logger = logging.getLogger(__name__)
_LOGGED: set[str] = set()
_LOCK = threading.Lock()


@dataclass(frozen=True)
class SandboxLayer:
    """One layer (directory, limits, namespaces, user, no_new_privs, seccomp): got or not, and why."""

    name: str
    active: bool
    detail: str


def decode_layers(payload: bytes) -> list[SandboxLayer]:
    """The worker's READY payload: a JSON list of {name, active, detail}."""
    try:
        rows = json.loads(payload)
        return [SandboxLayer(str(r["name"]), bool(r["active"]), str(r["detail"])) for r in rows]
    except (ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"malformed layer report from the sandbox worker: {exc}") from exc


def log_missing(layers: list[SandboxLayer]) -> list[SandboxLayer]:
    """Warn about each missing layer the first time this process sees it missing; those newly logged."""
    with _LOCK:
        new = [layer for layer in layers if not layer.active and layer.name not in _LOGGED]
        _LOGGED.update(layer.name for layer in new)
    for layer in new:
        logger.warning("strategy sandbox: the %s layer is missing here: %s", layer.name, layer.detail)
    return new
