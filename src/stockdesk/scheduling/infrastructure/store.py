"""IScheduleStore on SQLite or PostgreSQL. The claim of a day is an INSERT under UNIQUE (schedule_id,
day): whichever process inserts first runs it; the other's IntegrityError is its answer."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

from pydantic import TypeAdapter
from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError

from stockdesk.notifications.application import DigestRow
from stockdesk.scheduling.domain.errors import ScheduleExists
from stockdesk.scheduling.domain.model import OPEN_STATUSES, Delivery, RunStatus, Schedule, ScheduleRun
from stockdesk.scheduling.domain.ports import IScheduleStore
from stockdesk.scheduling.infrastructure.models import ScheduleRow, ScheduleRunRow
from stockdesk.shared.db import Database

_ROWS = TypeAdapter(list[DigestRow])
_DELIVERIES = TypeAdapter(list[Delivery])


def _aware(moment: datetime | None) -> datetime | None:
    return moment.replace(tzinfo=UTC) if moment is not None and moment.tzinfo is None else moment


def _schedule(row: ScheduleRow) -> Schedule:
    return Schedule(
        id=row.id, name=row.name, watchlist=row.watchlist, at=row.at, tz=row.tz, days=row.days,
        mode=row.mode,  # type: ignore[arg-type]
        notify=json.loads(row.notify_json), paper=row.paper, created_at=_aware(row.created_at),
        language=row.language,  # type: ignore[arg-type]
    )  # fmt: skip


def _run(row: ScheduleRunRow, name: str) -> ScheduleRun:
    return ScheduleRun(
        id=row.id, schedule=name, day=row.day, status=RunStatus(row.status), reason=row.reason,
        job_id=row.job_id, claimed_by=row.claimed_by, fired_at=_aware(row.fired_at),
        finished_at=_aware(row.finished_at), report_dir=row.report_dir,
        rows=_ROWS.validate_json(row.rows_json), deliveries=_DELIVERIES.validate_json(row.deliveries_json),
        notes=json.loads(row.notes_json),
    )  # fmt: skip


class SqlScheduleStore(IScheduleStore):
    def __init__(self, database: Database):
        self._database = database

    def add(self, schedule: Schedule) -> Schedule:
        row = ScheduleRow(
            name=schedule.name, watchlist=schedule.watchlist, at=schedule.at, tz=schedule.tz,
            days=schedule.days, mode=schedule.mode, notify_json=json.dumps(schedule.notify),
            paper=schedule.paper, created_at=schedule.created_at or datetime.now(UTC),
            language=schedule.language,
        )  # fmt: skip
        try:
            with self._database.session() as session:
                session.add(row)
                session.flush()
                return _schedule(row)
        except IntegrityError:
            raise ScheduleExists(schedule.name) from None

    def get(self, name: str) -> Schedule | None:
        with self._database.session() as session:
            row = session.scalars(select(ScheduleRow).where(ScheduleRow.name == name)).first()
            return _schedule(row) if row is not None else None

    def list(self) -> list[Schedule]:
        with self._database.session() as session:
            return [_schedule(r) for r in session.scalars(select(ScheduleRow).order_by(ScheduleRow.name))]

    def remove(self, name: str) -> bool:
        with self._database.session() as session:
            row = session.scalars(select(ScheduleRow).where(ScheduleRow.name == name)).first()
            if row is None:
                return False
            session.execute(delete(ScheduleRunRow).where(ScheduleRunRow.schedule_id == row.id))
            session.delete(row)
            return True

    def claim(self, schedule: Schedule, day: date, fired_at: datetime, owner: str) -> ScheduleRun | None:
        assert schedule.id is not None
        row = ScheduleRunRow(
            schedule_id=schedule.id, day=day, status=RunStatus.CLAIMED.value, claimed_by=owner,
            fired_at=fired_at, rows_json="[]", deliveries_json="[]", notes_json="[]",
        )  # fmt: skip
        try:
            with self._database.session() as session:
                session.add(row)
                session.flush()
                return _run(row, schedule.name)
        except IntegrityError:
            return None

    def take_over(self, run_id: int, previous_owner: str | None, owner: str) -> bool:
        with self._database.session() as session:
            done = session.execute(
                update(ScheduleRunRow)
                .where(ScheduleRunRow.id == run_id, ScheduleRunRow.claimed_by == previous_owner)
                .values(claimed_by=owner)
            )
            return bool(done.rowcount)  # type: ignore[attr-defined]

    def _one(self, *conditions: object) -> ScheduleRun | None:
        with self._database.session() as session:
            found = session.execute(
                select(ScheduleRunRow, ScheduleRow.name)
                .join(ScheduleRow, ScheduleRow.id == ScheduleRunRow.schedule_id)
                .where(*conditions)  # type: ignore[arg-type]
            ).first()
            return _run(found[0], found[1]) if found is not None else None

    def run(self, schedule: str, day: date) -> ScheduleRun | None:
        return self._one(ScheduleRow.name == schedule, ScheduleRunRow.day == day)

    def run_by_job(self, job_id: str) -> ScheduleRun | None:
        return self._one(ScheduleRunRow.job_id == job_id)

    def update(
        self,
        run_id: int,
        *,
        status: RunStatus | None = None,
        reason: str | None = None,
        job_id: str | None = None,
        report_dir: str | None = None,
        finished_at: datetime | None = None,
    ) -> None:
        given = {
            "status": status.value if status else None, "reason": reason, "job_id": job_id,
            "report_dir": report_dir, "finished_at": finished_at,
        }  # fmt: skip
        values = {k: v for k, v in given.items() if v is not None}
        if values:
            with self._database.session() as session:
                session.execute(update(ScheduleRunRow).where(ScheduleRunRow.id == run_id).values(**values))

    def finish(
        self,
        run_id: int,
        status: RunStatus,
        *,
        reason: str | None,
        rows: list[DigestRow],
        deliveries: list[Delivery],
        notes: list[str],
        finished_at: datetime,
    ) -> None:
        with self._database.session() as session:
            session.execute(
                update(ScheduleRunRow)
                .where(ScheduleRunRow.id == run_id)
                .values(
                    status=status.value,
                    reason=reason,
                    rows_json=_ROWS.dump_json(rows).decode(),
                    deliveries_json=_DELIVERIES.dump_json(deliveries).decode(),
                    notes_json=json.dumps(notes, ensure_ascii=False),
                    finished_at=finished_at,
                )
            )

    def _many(self, *conditions: object, limit: int | None = None) -> list[ScheduleRun]:
        with self._database.session() as session:
            query = (
                select(ScheduleRunRow, ScheduleRow.name)
                .join(ScheduleRow, ScheduleRow.id == ScheduleRunRow.schedule_id)
                .where(*conditions)  # type: ignore[arg-type]
                .order_by(ScheduleRunRow.day.desc(), ScheduleRunRow.id.desc())
                .limit(limit)
            )
            return [_run(row, name) for row, name in session.execute(query)]

    def runs(self, schedule: str, limit: int = 20) -> list[ScheduleRun]:
        return self._many(ScheduleRow.name == schedule, limit=limit)

    def last_finished(self, schedule: str, before: date) -> ScheduleRun | None:
        found = self._many(
            ScheduleRow.name == schedule,
            ScheduleRunRow.day < before,
            ScheduleRunRow.status == RunStatus.DONE.value,
            limit=1,
        )
        return found[0] if found else None

    def open_runs(self) -> list[ScheduleRun]:
        return self._many(ScheduleRunRow.status.in_([s.value for s in OPEN_STATUSES]))
