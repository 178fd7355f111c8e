"""The strategy sandbox: validated parameters in, weights out, the code run in a limited worker process.

The public surface takes parameters only; the template is rendered and checked here, in the same
call that runs it, so code from anywhere else (a database row, a request) has no way in.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass

import pandas as pd

from stockdesk.strategy_lab.application.code_check import check_strategy_code
from stockdesk.strategy_lab.domain.errors import StrategyExecutionError
from stockdesk.strategy_lab.domain.params import StrategyParams, validate_params
from stockdesk.strategy_lab.domain.ports import IStrategySandbox, IStrategySession, IStrategyTemplate
from stockdesk.strategy_lab.infrastructure.sandbox.layers import log_missing
from stockdesk.strategy_lab.infrastructure.sandbox.worker import (
    FAILED,
    KILLED,
    MAX_OUTPUT_BYTES,
    MEMORY,
    WEIGHTS,
    decode_weights,
)
from stockdesk.strategy_lab.infrastructure.sandbox.worker_process import (
    WorkerGoneError,
    WorkerProcess,
    WorkerTimeoutError,
)

MESSAGE_CHARS = 500  # of a strategy's own error message


@dataclass(frozen=True)
class SandboxLimits:
    """Per strategy execution (Settings: strategy_cpu_seconds, _memory_mb, _timeout_seconds)."""

    cpu_seconds: int = 60
    memory_mb: int = 2048  # address space on top of the loaded interpreter, numpy and pandas
    timeout_seconds: float = 120.0


class ProcessSandbox(IStrategySandbox):
    def __init__(self, template: IStrategyTemplate, limits: SandboxLimits | None = None):
        self._template = template
        self._limits = limits or SandboxLimits()

    @contextmanager
    def session(self) -> Iterator[IStrategySession]:
        """One worker for the session, started on first use and killed at the end."""
        session = _SandboxSession(self._template, self._limits)
        try:
            yield session
        finally:
            session.close()


class _SandboxSession(IStrategySession):
    def __init__(self, template: IStrategyTemplate, limits: SandboxLimits):
        self._template = template
        self._limits = limits
        self._worker: WorkerProcess | None = None

    def weights(
        self, params: StrategyParams, closes: pd.DataFrame, fundamentals: pd.DataFrame
    ) -> pd.DataFrame:
        # validated again, family and all: a model_construct()ed object would skip the schema on its
        # way to the template
        validated = validate_params(params.model_dump())
        code = self._template.render(validated)
        check_strategy_code(code)
        request = pickle.dumps({"code": code, "closes": closes, "fundamentals": fundamentals}, protocol=5)
        kind, body = self._run(request)
        if kind == WEIGHTS:
            try:
                return decode_weights(body)
            except ValueError as exc:
                raise StrategyExecutionError(f"the strategy returned malformed weights: {exc}") from exc
        raise self._failure(kind, body)

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None

    def _run(self, request: bytes) -> tuple[bytes, bytes]:
        if self._worker is None or not self._worker.alive:
            try:
                self._worker = WorkerProcess(asdict(self._limits))
            except (WorkerTimeoutError, WorkerGoneError, OSError) as exc:
                raise StrategyExecutionError(f"the strategy sandbox did not start: {exc}") from exc
            log_missing(self._worker.layers)  # once per process and layer: a run says what it lacks
        try:
            return self._worker.run(request, self._limits.timeout_seconds)
        except WorkerTimeoutError as exc:
            raise StrategyExecutionError(
                f"the strategy ran longer than {self._limits.timeout_seconds:g} s and was stopped",
                details={"limit": "timeout"},
            ) from exc
        except WorkerGoneError as exc:
            raise StrategyExecutionError(f"the strategy sandbox failed: {exc}") from exc

    def _failure(self, kind: bytes, body: bytes) -> StrategyExecutionError:
        limits = self._limits
        if kind == FAILED:
            message = body.decode("utf-8", "replace")
            return StrategyExecutionError(" ".join(message.split())[:MESSAGE_CHARS])
        if kind == MEMORY:
            return StrategyExecutionError(
                f"the strategy needed more than its {limits.memory_mb} MB of memory",
                details={"limit": "memory"},
            )
        how = body.decode("ascii", "replace")
        if kind == KILLED and how in ("SIGXCPU", "SIGKILL"):
            return StrategyExecutionError(
                f"the strategy used more than its {limits.cpu_seconds} s of CPU time and was stopped ({how})",
                details={"limit": "cpu"},
            )
        if kind == KILLED and how == "output":
            return StrategyExecutionError(f"the strategy returned more than {MAX_OUTPUT_BYTES // 2**20} MB")
        return StrategyExecutionError(f"the strategy process ended without a result ({how})")
