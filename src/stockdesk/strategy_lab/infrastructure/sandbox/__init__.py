"""Strategy execution in a limited worker process (see process_sandbox.py and confinement.py).

`sandbox_layers()` is the public question "how confined is a strategy here?" (`stockdesk doctor`).
"""

from __future__ import annotations

from dataclasses import asdict

from stockdesk.strategy_lab.infrastructure.sandbox.layers import SandboxLayer
from stockdesk.strategy_lab.infrastructure.sandbox.process_sandbox import SandboxLimits
from stockdesk.strategy_lab.infrastructure.sandbox.worker_process import (
    WorkerGoneError,
    WorkerTimeoutError,
    probe_layers,
)

__all__ = ["SandboxLayer", "sandbox_layers"]


def sandbox_layers(limits: SandboxLimits | None = None) -> list[SandboxLayer]:
    """Each layer of the strategy sandbox and whether a strategy process gets it on this machine.

    Asked the way the worker asks at start-up: a child is confined as a strategy's would be and
    reports what took (about 0.1 s, no pandas). Order: directory, limits, namespaces, user,
    no_new_privs, seccomp. A worker that cannot start comes back as one inactive `worker` layer.
    """
    try:
        return probe_layers(asdict(limits or SandboxLimits()))
    except (WorkerGoneError, WorkerTimeoutError, OSError, ValueError) as exc:
        return [SandboxLayer("worker", False, f"the sandbox worker did not start: {exc}")]
