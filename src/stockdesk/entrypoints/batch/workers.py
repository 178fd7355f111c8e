"""One container per worker process, and the engine a batch command runs on.

A Ray worker (or a thread of this process) builds its container once from the settings it was
given, then reuses it for every task it runs: the database engine, the LLM service, and, with
`distributed`, the node's shared embedded model and the cluster-wide provider limits.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.tasks import ITaskEngine, ThreadEngine

if TYPE_CHECKING:
    from stockdesk.entrypoints.container import AppContainer
    from stockdesk.llm_platform.application.llm_service import LLMService

LLMFactory = Callable[[Settings, Database], "LLMService"]

_containers: dict[tuple[str, str, bool], AppContainer] = {}
_lock = threading.Lock()


def worker_container(settings: Settings, llm: LLMFactory | None, distributed: bool) -> AppContainer:
    """This process's container for these settings (built on first use, then reused)."""
    from stockdesk.entrypoints.container import AppContainer

    # a factory arrives unpickled anew with every task: it is known by its name, not its identity
    name = f"{getattr(llm, '__module__', '')}.{getattr(llm, '__qualname__', type(llm).__qualname__)}"
    key = (settings.model_dump_json(), name if llm is not None else "", distributed)
    with _lock:
        found = _containers.get(key)
        if found is None:
            found = AppContainer(settings, distributed=distributed)
            if llm is not None:
                found.__dict__["llm_service"] = llm(settings, found.database)
            found.database.ensure_schema()
            _containers[key] = found
        return found


def batch_engine(workers: int, *, engine: str = "ray", ray_address: str | None = None) -> ITaskEngine:
    """Ray (local instance or cluster by address) or threads of this process."""
    if engine == "threads":
        return ThreadEngine(workers)
    from stockdesk.shared.tasks.ray_engine import RayEngine, start_ray

    start_ray(ray_address, num_cpus=max(workers, os.cpu_count() or 1))
    return RayEngine(workers)
