"""ITaskStore over SQLAlchemy: `jobs` and `job_tasks` in the shared database.

A run whose process died (liveness.py) is recovered by whoever looks at it first: reopening the job
(`open_job`), resuming it (`recover`) or reading it (`get_job`, `list_jobs`, `job_history`). Its
running tasks go back to pending and the job is `interrupted`, so no list shows it running forever
and a resume computes every point it had in hand.

Batches go through Core statements with executemany (one statement, many parameter sets, one
transaction), so adding or finishing thousands of tasks costs one round trip per batch rather than
one ORM object each.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Connection,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    bindparam,
    case,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column
from sqlalchemy.sql.dml import Insert

from stockdesk.shared.db.base import Base
from stockdesk.shared.db.database import Database
from stockdesk.shared.db.timestamps import as_utc
from stockdesk.shared.tasks import (
    ITaskStore,
    JobPage,
    JobRecord,
    JobStatus,
    JobSummary,
    TaskCounts,
    TaskRecord,
    TaskStatus,
)
from stockdesk.shared.tasks.canonical import jsonable
from stockdesk.shared.tasks.liveness import runner_alive, this_runner

MAX_KEY_CHARS = 255


class JobRow(Base):
    __tablename__ = "jobs"
    __table_args__ = (UniqueConstraint("kind", "config_hash", name="uq_jobs_kind_config_hash"),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(String(64))
    config_hash: Mapped[str] = mapped_column(String(64))
    config: Mapped[dict] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    error: Mapped[str | None] = mapped_column(Text)
    cancel_reason: Mapped[str | None] = mapped_column(Text)  # asked to stop (by any process)
    owner: Mapped[str | None] = mapped_column(String(128))  # host:pid of the process running it
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class JobTaskRow(Base):
    __tablename__ = "job_tasks"
    __table_args__ = (Index("ix_job_tasks_job_id_status", "job_id", "status"),)

    job_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True
    )
    key: Mapped[str] = mapped_column(String(MAX_KEY_CHARS), primary_key=True)
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(Text)
    result: Mapped[dict | None] = mapped_column(JSON)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    not_before: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))  # retry backoff


JOBS = JobRow.__table__
TASKS = JobTaskRow.__table__
_KEY = bindparam("b_key")  # executemany parameter names must differ from the column names
_THIS_TASK = (TASKS.c.job_id == bindparam("b_job_id")) & (TASKS.c.key == _KEY)
_ONE_LESS_ATTEMPT = case((TASKS.c.attempts > 0, TASKS.c.attempts - 1), else_=0)


def _insert_missing(conn: Connection) -> Insert:
    """INSERT that skips rows whose primary key exists (a concurrent add_tasks, say)."""
    if conn.dialect.name == "sqlite":
        return sqlite.insert(TASKS).on_conflict_do_nothing()
    if conn.dialect.name == "postgresql":
        return postgresql.insert(TASKS).on_conflict_do_nothing()
    return insert(TASKS)  # pragma: no cover - only the two supported databases


def _retriable(max_attempts: int) -> Any:
    return (JobTaskRow.status == TaskStatus.FAILED.value) & (JobTaskRow.attempts < max_attempts)


DIED = "interrupted: the process running it stopped"
UNFINISHED = (TaskStatus.PENDING.value, TaskStatus.RUNNING.value)


def _job(row: JobRow) -> JobRecord:
    return JobRecord(
        id=row.id,
        kind=row.kind,
        config_hash=row.config_hash,
        config=row.config,
        status=JobStatus(row.status),
        created_at=as_utc(row.created_at),
        updated_at=as_utc(row.updated_at),
        error=row.error,
        cancel_reason=row.cancel_reason,
        owner=row.owner,
        live=row.status == JobStatus.RUNNING.value and runner_alive(row.owner, row.heartbeat_at),
    )


def _live(row: JobRow) -> bool:
    return row.status == JobStatus.RUNNING.value and runner_alive(row.owner, row.heartbeat_at)


def _recover(db: Session, row: JobRow, *, unfinished_done: bool = False) -> None:
    """Recover the job of `row`, which no live process runs: its `running` tasks back to `pending`
    (the interrupted attempt not counted), a `running` job `interrupted`, its stop request forgotten;
    with `unfinished_done`, a job marked `done` with tasks still to do `interrupted` too (an older
    version could mark one so). Nothing happens when another process changed the job's status or
    owner since `row` was read (a runner that has just started): the job's row is updated first,
    on that condition, and holds the write lock while the tasks are released."""
    now = datetime.now(UTC)
    values: dict[str, Any] = {"cancel_reason": None}
    if row.status == JobStatus.RUNNING.value:
        values |= {"status": JobStatus.INTERRUPTED.value, "error": DIED, "updated_at": now}
    elif unfinished_done and row.status == JobStatus.DONE.value:
        left = db.scalar(
            select(func.count())
            .select_from(TASKS)
            .where(TASKS.c.job_id == row.id, TASKS.c.status.in_(UNFINISHED))
        )
        if left:
            error = f"interrupted: {left} tasks were still to do when it was marked done"
            values |= {"status": JobStatus.INTERRUPTED.value, "error": error, "updated_at": now}
    owner = JOBS.c.owner.is_(None) if row.owner is None else JOBS.c.owner == row.owner
    same = update(JOBS).where(JOBS.c.id == row.id, JOBS.c.status == row.status, owner)
    if db.execute(same.values(**values)).rowcount == 0:  # type: ignore[attr-defined]
        return
    db.execute(
        update(TASKS)
        .where(TASKS.c.job_id == row.id, TASKS.c.status == TaskStatus.RUNNING.value)
        .values(status=TaskStatus.PENDING.value, attempts=_ONE_LESS_ATTEMPT, updated_at=now)
    )
    db.refresh(row)


def _settle_dead_runs(db: Session) -> None:
    """Record the runs whose process died as `interrupted` (their running tasks pending again), as
    the next process to look finds them: what every read of jobs does first, so that a list, the
    history and a job's own page show a dead run as interrupted, never as running forever."""
    for row in db.scalars(select(JobRow).where(JobRow.status == JobStatus.RUNNING.value)).all():
        if not runner_alive(row.owner, row.heartbeat_at):
            _recover(db, row)


def _counts(by_status: Mapping[str, int]) -> TaskCounts:
    return TaskCounts(
        **{s.value: by_status.get(s.value, 0) for s in TaskStatus}, total=sum(by_status.values())
    )


TASK_COLUMNS = ("job_id", "key", "status", "attempts", "error", "result", "updated_at", "not_before")


def _task(row: Any) -> TaskRecord:
    """A task row (an ORM row or a plain row of TASK_COLUMNS) as its record."""
    return TaskRecord(
        job_id=row.job_id,
        key=row.key,
        status=TaskStatus(row.status),
        attempts=row.attempts,
        error=row.error,
        result=row.result,
        updated_at=as_utc(row.updated_at),
        not_before=as_utc(row.not_before) if row.not_before is not None else None,
    )


class SqlTaskStore(ITaskStore):
    def __init__(self, database: Database):
        self._db = database

    def open_job(self, kind: str, config_hash: str, config: Mapping[str, Any]) -> tuple[JobRecord, bool]:
        existing = self._find(kind, config_hash)
        if existing is None:
            now = datetime.now(UTC)
            row = JobRow(
                id=uuid.uuid4().hex,
                kind=kind,
                config_hash=config_hash,
                config=jsonable(config),
                status=JobStatus.PENDING.value,
                created_at=now,
                updated_at=now,
            )
            try:
                with self._db.session() as db:
                    db.add(row)
                return _job(row), True
            except IntegrityError:  # another process created it in between
                existing = self._find(kind, config_hash)
                if existing is None:
                    raise
        recovered = self.recover(existing)  # from a runner that died (never from a live one)
        if recovered is None:  # deleted in between: pragma: no cover - jobs are never deleted
            raise KeyError(f"job {existing} does not exist")
        return recovered, False

    def recover(self, job_id: str) -> JobRecord | None:
        with self._db.session() as db:
            row = db.get(JobRow, job_id)
            if row is None:
                return None
            if not _live(row):
                _recover(db, row, unfinished_done=True)
            return _job(row)

    def _find(self, kind: str, config_hash: str) -> str | None:
        with self._db.session() as db:
            return db.scalar(select(JobRow.id).where(JobRow.kind == kind, JobRow.config_hash == config_hash))

    def add_tasks(self, job_id: str, keys: Iterable[str]) -> int:
        wanted = list(dict.fromkeys(keys))  # without duplicates, in order
        for key in wanted:
            if not isinstance(key, str) or not key or len(key) > MAX_KEY_CHARS:
                raise ValueError(f"a task key must be non-empty text of at most {MAX_KEY_CHARS} characters")
        with self._db.session() as db:
            if db.get(JobRow, job_id) is None:
                raise KeyError(f"job {job_id} does not exist")
            have = set(db.scalars(select(JobTaskRow.key).where(JobTaskRow.job_id == job_id)))
            missing = [key for key in wanted if key not in have]
            if missing:
                conn = db.connection()
                now = datetime.now(UTC)
                conn.execute(
                    _insert_missing(conn).values(
                        job_id=job_id,
                        key=_KEY,
                        status=TaskStatus.PENDING.value,
                        attempts=0,
                        updated_at=now,
                    ),
                    [{"b_key": key} for key in missing],
                )
            return len(missing)

    def claimable(
        self, job_id: str, max_attempts: int, limit: int | None = None, now: datetime | None = None
    ) -> list[TaskRecord]:
        retriable = _retriable(max_attempts)
        if now is not None:
            retriable = retriable & (JobTaskRow.not_before.is_(None) | (JobTaskRow.not_before <= now))
        query = (
            select(JobTaskRow)
            .where(JobTaskRow.job_id == job_id, (JobTaskRow.status == TaskStatus.PENDING.value) | retriable)
            .order_by(JobTaskRow.key)
            .limit(limit)
        )
        with self._db.session() as db:
            return [_task(row) for row in db.scalars(query)]

    def next_retry_at(self, job_id: str, max_attempts: int) -> datetime | None:
        query = select(func.min(JobTaskRow.not_before)).where(
            JobTaskRow.job_id == job_id, _retriable(max_attempts)
        )
        with self._db.session() as db:
            found = db.scalar(query)
        return as_utc(found) if found is not None else None

    def _update_each(self, job_id: str, keys: Iterable[str], where: Any = None, **values: Any) -> None:
        """One UPDATE of `values` run for every key (executemany), in one transaction."""
        params = [{"b_job_id": job_id, "b_key": key} for key in dict.fromkeys(keys)]
        if not params:
            return
        stmt = update(TASKS).where(_THIS_TASK)
        if where is not None:
            stmt = stmt.where(where)
        with self._db.session() as db:
            db.connection().execute(stmt.values(updated_at=datetime.now(UTC), **values), params)

    def mark_running(self, job_id: str, keys: Iterable[str]) -> None:
        self._update_each(job_id, keys, status=TaskStatus.RUNNING.value, attempts=TASKS.c.attempts + 1)

    def release(self, job_id: str, keys: Iterable[str]) -> None:
        self._update_each(
            job_id,
            keys,
            TASKS.c.status == TaskStatus.RUNNING.value,
            status=TaskStatus.PENDING.value,
            attempts=_ONE_LESS_ATTEMPT,
        )

    def complete(self, job_id: str, results: Mapping[str, Mapping[str, Any]]) -> None:
        if not results:
            return
        params = [
            {"b_job_id": job_id, "b_key": key, "b_result": jsonable(result)}
            for key, result in results.items()
        ]
        stmt = (
            update(TASKS)
            .where(_THIS_TASK)
            .values(
                status=TaskStatus.DONE.value,
                result=bindparam("b_result", type_=JSON),
                error=None,
                updated_at=datetime.now(UTC),
            )
        )
        with self._db.session() as db:
            db.connection().execute(stmt, params)

    def fail(
        self, job_id: str, errors: Mapping[str, str], retry_at: Mapping[str, datetime] | None = None
    ) -> None:
        if not errors:
            return
        retry_at = retry_at or {}
        params = [
            {"b_job_id": job_id, "b_key": key, "b_error": error, "b_not_before": retry_at.get(key)}
            for key, error in errors.items()
        ]
        stmt = (
            update(TASKS)
            .where(_THIS_TASK)
            .values(
                status=TaskStatus.FAILED.value,
                error=bindparam("b_error"),
                not_before=bindparam("b_not_before", type_=DateTime(timezone=True)),
                updated_at=datetime.now(UTC),
            )
        )
        with self._db.session() as db:
            db.connection().execute(stmt, params)

    def tasks(self, job_id: str, status: TaskStatus | None = None) -> list[TaskRecord]:
        """Read as plain rows, not ORM objects: an evaluation reads 47,000 results at once."""
        columns = [getattr(JobTaskRow, name) for name in TASK_COLUMNS]
        query = select(*columns).where(JobTaskRow.job_id == job_id).order_by(JobTaskRow.key)
        if status is not None:
            query = query.where(JobTaskRow.status == TaskStatus(status).value)
        with self._db.session() as db:
            return [_task(row) for row in db.execute(query)]

    def counts(self, job_id: str) -> TaskCounts:
        query = (
            select(JobTaskRow.status, func.count())
            .where(JobTaskRow.job_id == job_id)
            .group_by(JobTaskRow.status)
        )
        with self._db.session() as db:
            return _counts({status: int(n) for status, n in db.execute(query)})

    def set_job_status(self, job_id: str, status: JobStatus, error: str | None = None) -> None:
        with self._db.session() as db:
            row = db.get(JobRow, job_id)
            if row is None:
                raise KeyError(f"job {job_id} does not exist")
            row.status = JobStatus(status).value
            row.error = error
            row.updated_at = datetime.now(UTC)

    def start_run(self, job_id: str) -> None:
        with self._db.session() as db:
            row = db.get(JobRow, job_id)
            if row is None:
                raise KeyError(f"job {job_id} does not exist")
            now = datetime.now(UTC)
            row.status, row.error, row.owner = JobStatus.RUNNING.value, None, this_runner()
            row.heartbeat_at = row.updated_at = now

    def heartbeat(self, job_id: str) -> None:
        with self._db.session() as db:
            db.execute(update(JOBS).where(JOBS.c.id == job_id).values(heartbeat_at=datetime.now(UTC)))

    def request_cancel(self, job_id: str, reason: str) -> None:
        with self._db.session() as db:
            row = db.get(JobRow, job_id)
            if row is None:
                raise KeyError(f"job {job_id} does not exist")
            row.cancel_reason = reason
            row.updated_at = datetime.now(UTC)

    def clear_cancel(self, job_id: str) -> None:
        with self._db.session() as db:
            db.execute(update(JOBS).where(JOBS.c.id == job_id).values(cancel_reason=None))

    def cancel_requested(self, job_id: str) -> str | None:
        with self._db.session() as db:
            return db.scalar(select(JobRow.cancel_reason).where(JobRow.id == job_id))

    def get_job(self, job_id: str) -> JobRecord | None:
        with self._db.session() as db:
            row = db.get(JobRow, job_id)
            if row is not None and row.status == JobStatus.RUNNING.value and not _live(row):
                _recover(db, row)
            return None if row is None else _job(row)

    def list_jobs(self, kind: str | None = None, limit: int = 20) -> list[JobRecord]:
        query = select(JobRow).order_by(JobRow.created_at.desc(), JobRow.id).limit(limit)
        if kind is not None:
            query = query.where(JobRow.kind == kind)
        with self._db.session() as db:
            _settle_dead_runs(db)
            return [_job(row) for row in db.scalars(query)]

    def job_history(
        self,
        statuses: Collection[JobStatus],
        kinds: Collection[str] | None = None,
        *,
        offset: int = 0,
        limit: int = 20,
    ) -> JobPage:
        wanted = [JobRow.status.in_([JobStatus(s).value for s in statuses])]
        if kinds is not None:
            wanted.append(JobRow.kind.in_(list(kinds)))
        page = select(JobRow).where(*wanted).order_by(JobRow.updated_at.desc(), JobRow.id)
        with self._db.session() as db:
            _settle_dead_runs(db)  # a dead run is listed as the interrupted job it is
            total = db.scalar(select(func.count()).select_from(JobRow).where(*wanted)) or 0
            rows = list(db.scalars(page.offset(offset).limit(limit)))
            by_job: dict[str, dict[str, int]] = {row.id: {} for row in rows}
            counted = (
                select(JobTaskRow.job_id, JobTaskRow.status, func.count())
                .where(JobTaskRow.job_id.in_(list(by_job)))
                .group_by(JobTaskRow.job_id, JobTaskRow.status)
            )
            for job_id, status, n in db.execute(counted) if by_job else ():
                by_job[job_id][status] = int(n)
            present = list(db.scalars(select(JobRow.kind).distinct().order_by(JobRow.kind)))
            jobs = [JobSummary(job=_job(row), counts=_counts(by_job[row.id])) for row in rows]
        return JobPage(jobs=jobs, total=int(total), kinds=present)
