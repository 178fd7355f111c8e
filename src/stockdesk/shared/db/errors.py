"""Database failures a user can act on, as one-line errors instead of a driver traceback.

SQLite reports a writer that waited out its busy timeout as "database is locked", and a write that
hit a full disk or a file-size limit as "database or disk is full" / "disk I/O error". The engine's
error hook (see database.py) turns those into these errors; the transaction is rolled back, so
nothing of the failed write is kept.
"""

from __future__ import annotations

from stockdesk.shared.errors import ServiceUnavailableError

LOCKED = ("database is locked", "database table is locked")
FULL = ("database or disk is full", "disk i/o error")


class DatabaseLockedError(ServiceUnavailableError):
    """Another writer held the database for longer than the busy timeout (HTTP 503)."""

    code = "DATABASE_LOCKED"


class DatabaseFullError(ServiceUnavailableError):
    """The database could not grow: the disk is full or the file is at a size limit (HTTP 503)."""

    code = "DATABASE_FULL"


def translate(
    error: BaseException, where: str, busy_timeout_seconds: float
) -> ServiceUnavailableError | None:
    """The actionable error for a driver error, or None when it is not one of these."""
    text = str(error).lower()
    if any(marker in text for marker in LOCKED):
        return DatabaseLockedError(
            f"the database {where} is locked by another writer (waited {busy_timeout_seconds:g} s); "
            "try again when that process is done, or raise STOCKDESK_SQLITE_BUSY_TIMEOUT_SECONDS"
        )
    if any(marker in text for marker in FULL):
        return DatabaseFullError(
            f"the database {where} could not be written ({error}): the disk is full or the file is at "
            "a size limit; nothing of this write was kept, free some space and run it again"
        )
    return None
