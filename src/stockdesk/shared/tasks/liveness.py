"""Is the process running a job still alive? Reopening a job must not take a live runner's tasks.

A runner writes its `host:pid` when it starts and a heartbeat every HEARTBEAT_SECONDS. On the same
host the pid answers at once (a killed runner is seen dead the moment it is gone); on another host
(a cluster's driver) only the heartbeat can tell, so a runner silent for STALE_SECONDS is dead.
"""

from __future__ import annotations

import os
import socket
from datetime import UTC, datetime, timedelta

HEARTBEAT_SECONDS = 10.0
STALE_SECONDS = 60.0


def this_runner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def runner_alive(owner: str | None, heartbeat_at: datetime | None, now: datetime | None = None) -> bool:
    if not owner or heartbeat_at is None:
        return False
    host, _, pid = owner.rpartition(":")
    if host == socket.gethostname() and pid.isdigit():
        return _pid_alive(int(pid))
    beat = heartbeat_at if heartbeat_at.tzinfo else heartbeat_at.replace(tzinfo=UTC)
    return (now or datetime.now(UTC)) - beat < timedelta(seconds=STALE_SECONDS)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by someone else
        return True
    return True
