"""Per-key limits in the database, so that every server process on one database enforces one budget.

Two tables: `access_counters` (requests per subject, class and minute, raised by one atomic
conditional upsert) and `access_leases` (the requests in flight: a class allows N per subject, kept
as slots 0..N-1; a request takes a free or lapsed slot with one atomic upsert, and gives it back
when it ends). A lease lapses `lease_seconds` after its last renewal: each process renews its own
leases from one thread while it holds any, so a process that was killed holds nothing for longer.

The rate is a sliding minute, estimated from two fixed ones (this minute's count plus the last
minute's weighted by how much of it still falls within the last 60 s), which allows no burst of
twice the rate at a minute's turn as fixed windows would.
"""

from __future__ import annotations

import functools
import logging
import math
import threading
import time
import uuid
from collections.abc import Callable

from sqlalchemy import BigInteger, Float, Integer, String, delete, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Mapped, Session, mapped_column

from stockdesk.shared.access.route_limits import Release, once
from stockdesk.shared.db.base import Base
from stockdesk.shared.db.database import Database

logger = logging.getLogger(__name__)
MINUTE = 60.0
DEFAULT_LEASE_SECONDS = 60.0


class AccessCounterRow(Base):
    __tablename__ = "access_counters"

    subject: Mapped[str] = mapped_column(String(96), primary_key=True)  # "key:<id>" or "client:<address>"
    bucket: Mapped[str] = mapped_column(String(16), primary_key=True)  # the route class
    minute: Mapped[int] = mapped_column(BigInteger, primary_key=True)  # seconds since the epoch // 60
    count: Mapped[int] = mapped_column(Integer)


class AccessLeaseRow(Base):
    __tablename__ = "access_leases"

    subject: Mapped[str] = mapped_column(String(96), primary_key=True)
    bucket: Mapped[str] = mapped_column(String(16), primary_key=True)
    slot: Mapped[int] = mapped_column(Integer, primary_key=True)
    lease: Mapped[str] = mapped_column(String(32))  # the request's own id: only it gives the slot back
    holder: Mapped[str] = mapped_column(String(32))  # the process that renews it
    expires_at: Mapped[float] = mapped_column(Float)  # seconds since the epoch


def _insert(session: Session):  # type: ignore[no-untyped-def]
    return postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert


class SqlAccessCounters:
    """The counters of the shared classes (`lease` and `admit`, as `route_limits.enter` asks them).
    Every method is one short transaction."""

    def __init__(
        self,
        database: Database,
        *,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        clock: Callable[[], float] = time.time,  # wall clock: the processes compare it with each other
    ):
        self._db = database
        self.lease_seconds = lease_seconds
        self._clock = clock
        self.holder = uuid.uuid4().hex
        self._held = 0
        self._lock = threading.Lock()
        self._renewer: threading.Thread | None = None
        self._stopped = threading.Event()

    def lease(self, subject: str, bucket: str, concurrent: int) -> Release | None:
        now = self._clock()
        lease = uuid.uuid4().hex
        with self._db.session() as session:
            insert = _insert(session)
            for slot in range(concurrent):
                stmt = insert(AccessLeaseRow).values(
                    subject=subject,
                    bucket=bucket,
                    slot=slot,
                    lease=lease,
                    holder=self.holder,
                    expires_at=now + self.lease_seconds,
                )
                stmt = stmt.on_conflict_do_update(
                    index_elements=["subject", "bucket", "slot"],
                    set_={c: stmt.excluded[c] for c in ("lease", "holder", "expires_at")},
                    where=AccessLeaseRow.expires_at <= now,  # only a slot whose lease lapsed
                )
                if session.execute(stmt.returning(AccessLeaseRow.slot)).first() is not None:
                    self._started_holding()
                    return once(functools.partial(self.give_back, (subject, bucket, slot), lease))
        return None

    def admit(self, subject: str, bucket: str, per_minute: int) -> int:
        now = self._clock()
        minute = int(now // MINUTE)
        left = 1.0 - (now - minute * MINUTE) / MINUTE  # share of the last minute still within 60 s
        # Reads and the write are separate transactions: on SQLite a transaction that read first
        # could not take the write lock once another process wrote (its snapshot is stale).
        last = self._read(subject, bucket, minute - 1)
        allowed = math.ceil(per_minute - last * left - 1e-9)
        if allowed >= 1:
            with self._db.session() as session:
                if self._count(session, subject, bucket, minute, allowed):
                    session.execute(
                        delete(AccessCounterRow).where(
                            AccessCounterRow.subject == subject,
                            AccessCounterRow.bucket == bucket,
                            AccessCounterRow.minute < minute - 1,
                        )
                    )
                    return 0
        return _wait(per_minute, last, self._read(subject, bucket, minute), left)

    def _read(self, subject: str, bucket: str, minute: int) -> int:
        with self._db.session() as session:
            row = session.get(AccessCounterRow, (subject, bucket, minute))
            return row.count if row is not None else 0

    @staticmethod
    def _count(session: Session, subject: str, bucket: str, minute: int, allowed: int) -> bool:
        """Add the request to this minute's count unless it already holds `allowed` (one statement,
        so two processes cannot both take the last place)."""
        row = {"subject": subject, "bucket": bucket, "minute": minute, "count": 1}
        stmt = _insert(session)(AccessCounterRow).values(**row)
        stmt = stmt.on_conflict_do_update(
            index_elements=["subject", "bucket", "minute"],
            set_={"count": AccessCounterRow.count + 1},
            where=AccessCounterRow.count < allowed,
        )
        return session.execute(stmt.returning(AccessCounterRow.count)).first() is not None

    def give_back(self, row: tuple[str, str, int], lease: str) -> None:
        """End a lease (a slot another request took after it lapsed stays that request's)."""
        subject, bucket, slot = row
        try:
            with self._db.session() as session:
                session.execute(
                    delete(AccessLeaseRow).where(
                        AccessLeaseRow.subject == subject,
                        AccessLeaseRow.bucket == bucket,
                        AccessLeaseRow.slot == slot,
                        AccessLeaseRow.lease == lease,
                    )
                )
        except Exception:  # the lease lapses by itself: a failed release must not fail the request
            logger.warning("could not release an access lease; it lapses in %.0f s", self.lease_seconds)
        finally:
            with self._lock:
                self._held -= 1

    def renew(self) -> int:
        """Push back the expiry of every lease this process holds; returns how many."""
        with self._db.session() as session:
            renewed = session.execute(
                update(AccessLeaseRow)
                .where(AccessLeaseRow.holder == self.holder)
                .values(expires_at=self._clock() + self.lease_seconds)
                .returning(AccessLeaseRow.slot)
            )
            return len(renewed.all())

    def stop(self) -> None:
        """Renew nothing more (the process is ending): its leases lapse as a killed process's do."""
        self._stopped.set()

    def _started_holding(self) -> None:
        with self._lock:
            self._held += 1
            if self._renewer is None:
                self._renewer = threading.Thread(target=self._renew_while_held, name="leases", daemon=True)
                self._renewer.start()

    def _renew_while_held(self) -> None:
        """Renew this process's leases every third of their life, until none is held."""
        while not self._stopped.wait(self.lease_seconds / 3):
            with self._lock:
                if self._held <= 0:
                    self._renewer = None
                    return
            try:
                self.renew()
            except Exception:  # a busy database: the next round tries again, within the lease's life
                logger.warning("could not renew access leases", exc_info=True)


def _wait(per_minute: int, last: int, this: int, left: float) -> int:
    """Whole seconds until a request would be admitted (Retry-After), at least 1 and at most 60."""
    now_in_minute = (1.0 - left) * MINUTE
    if this < per_minute and last > 0:  # the last minute's weight has to fall further, in this minute
        seconds = MINUTE * (1.0 - (per_minute - this) / last) - now_in_minute
    else:  # next minute: this minute's count, weighted down, is what remains
        seconds = MINUTE - now_in_minute + max(0.0, MINUTE * (1.0 - per_minute / max(this, 1)))
    return max(1, min(60, math.ceil(seconds)))
