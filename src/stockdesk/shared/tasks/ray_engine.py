"""The Ray engine: each batch is a Ray task, on a local Ray (`ray.init()`) or a cluster by address.

Ray never retries a task itself (`max_retries=0`): retries, backoff and resumption belong to the
task store, so that a task's attempts are counted in one place whatever killed it. A worker that
dies (killed, out of memory) fails its batch with Ray's error; the runner retries those tasks.

Per-key exceptions are sent back as `RemoteTaskError` (type name and message): an arbitrary
exception may not unpickle in the driver, and the store keeps only its one-line text anyway.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

from stockdesk.shared.errors import ConfigurationError
from stockdesk.shared.tasks.engine import BatchWorker, ITaskEngine, Outcome, Submitted

logger = logging.getLogger(__name__)

NAMESPACE = "stockdesk"


class RemoteTaskError(Exception):
    """A task's exception, as text, from a Ray worker."""

    def __init__(self, type_name: str, message: str):
        super().__init__(message)
        self.type_name = type_name

    def __str__(self) -> str:
        return self.args[0] if self.args else ""

    def __reduce__(self) -> tuple[Any, ...]:
        return (RemoteTaskError, (self.type_name, str(self)))


def _portable(answer: Mapping[str, Any]) -> dict[str, Any]:
    portable: dict[str, Any] = {}
    for key, value in answer.items():
        if isinstance(value, BaseException):
            remote = RemoteTaskError(type(value).__name__, " ".join(str(value).split()))
            portable[key] = remote
        else:
            portable[key] = value
    return portable


def _run_batch(work: BatchWorker, keys: list[str]) -> dict[str, Any]:
    """What a Ray worker runs: the batch, with exceptions made portable."""
    try:
        return _portable(work(keys))
    except Exception as exc:
        raise RemoteTaskError(type(exc).__name__, " ".join(str(exc).split())) from None


def start_ray(address: str | None = None, *, num_cpus: int | None = None) -> str:
    """Connect to Ray once per process: a cluster by address, else a local instance; returns where.

    `address` "local" or nothing starts Ray on this machine (no dashboard); callers pass the
    configured one (`Settings.ray_address`, i.e. $STOCKDESK_RAY_ADDRESS or stockdesk.toml).
    Variables STOCKDESK_* travel to the workers, so they read the same settings.
    """
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - ray is a dependency
        raise ConfigurationError("ray is not installed: run `make` (or pip install ray)") from exc
    target = address or None
    if target == "local":
        target = None
    if ray.is_initialized():
        return "connected"
    env = {k: v for k, v in os.environ.items() if k.startswith("STOCKDESK_")}
    try:
        ray.init(
            address=target,
            num_cpus=None if target else num_cpus,
            include_dashboard=False,
            log_to_driver=False,
            namespace=NAMESPACE,
            configure_logging=False,
            runtime_env={"env_vars": env} if env else None,
        )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ConfigurationError(f"could not connect to Ray at {target}: {exc}") from exc
    return target or "local"


class RayEngine(ITaskEngine):
    """`workers` batches in flight as Ray tasks (each asking `cpus_per_task` CPUs of the cluster)."""

    name = "ray"

    def __init__(self, workers: int, *, cpus_per_task: float = 1.0):
        import ray

        if workers < 1:
            raise ValueError("workers must be at least 1")
        if not ray.is_initialized():
            raise ConfigurationError("Ray is not started: call start_ray() first")
        self.workers = workers
        self._ray = ray
        self._remote = ray.remote(max_retries=0, num_cpus=cpus_per_task)(_run_batch)

    def submit(self, work: BatchWorker, keys: list[str]) -> Submitted:
        return Submitted(keys, self._remote.remote(work, keys))

    def wait(self, pending: list[Submitted], timeout: float) -> list[Submitted]:
        by_ref = {batch.ref: batch for batch in pending}
        ready, _ = self._ray.wait(list(by_ref), num_returns=1, timeout=timeout)
        # take every batch already finished, not only the first
        if ready:
            more, _ = self._ray.wait(list(by_ref), num_returns=len(by_ref), timeout=0)
            ready = list(dict.fromkeys([*ready, *more]))
        return [by_ref[ref] for ref in ready]

    def outcome(self, batch: Submitted) -> Outcome:
        try:
            return self._ray.get(batch.ref)
        except self._ray.exceptions.RayTaskError as exc:
            cause = exc.cause if getattr(exc, "cause", None) is not None else exc
            if isinstance(cause, RemoteTaskError):
                return cause
            return RemoteTaskError(type(cause).__name__, _first_line(cause))
        except self._ray.exceptions.RayError as exc:  # a worker died, the node was lost ...
            return RemoteTaskError(type(exc).__name__, _first_line(exc))

    def cancel(self, pending: list[Submitted]) -> None:
        for batch in pending:
            try:
                self._ray.cancel(batch.ref, force=True)
            except Exception:
                logger.debug("could not cancel a Ray task", exc_info=True)


def _first_line(exc: BaseException) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return lines[-1].strip() if lines else type(exc).__name__
