"""A running session's liveness record and finished steps, kept in the store as the run goes.

Without them a session whose process dies (kill -9, a crash, a lost machine) stays `running` with no
steps and no elapsed time. With them the next process that opens the store sees the runner is dead
(`shared.tasks.liveness`, as for jobs), marks the session `interrupted` with its elapsed time up to
the last heartbeat, and shows the steps it finished. The writes happen on a thread of their own so
that no commit runs on the graph's event loop.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from functools import partial
from types import TracebackType

from stockdesk.coordinator.domain.dtos.session import NodeExecution
from stockdesk.coordinator.domain.ports.session_repository import IResearchSessionRepository

logger = logging.getLogger(__name__)

SESSION_HEARTBEAT_SECONDS = 5.0  # an interrupted session's elapsed time is right to within this
_STOP = object()


class SessionPulse:
    """`with SessionPulse(repository, id) as pulse:` around a run; `pulse.finished(node)` per step."""

    def __init__(
        self,
        repository: IResearchSessionRepository,
        session_id: str,
        usage: Callable[[], tuple[int, int]],
        every: float = SESSION_HEARTBEAT_SECONDS,
    ):
        """`usage()`: the run's (LLM calls, tokens) so far, kept with each heartbeat."""
        self._repository, self._session_id, self._every = repository, session_id, every
        self._usage = usage
        self._queue: queue.Queue[object] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name=f"pulse-{session_id[:8]}", daemon=True)

    def finished(self, node: NodeExecution) -> None:
        self._queue.put(node)

    def __enter__(self) -> SessionPulse:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._queue.put(_STOP)
        self._thread.join(timeout=30)  # the steps queued so far are written before the final save

    def _run(self) -> None:
        while True:
            try:
                item = self._queue.get(timeout=self._every)
            except queue.Empty:
                self._write(self._beat)
                continue
            if item is _STOP:
                return
            assert isinstance(item, NodeExecution)
            self._write(partial(self._repository.add_node, self._session_id, item))
            self._write(self._beat)

    def _beat(self) -> None:
        calls, tokens = self._usage()
        self._repository.heartbeat(self._session_id, calls, tokens)

    @staticmethod
    def _write(write: Callable[[], None]) -> None:
        try:
            write()
        except Exception:  # a missed beat or step must never stop the analysis
            logger.exception("could not record the session's progress")
