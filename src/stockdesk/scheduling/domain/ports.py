"""The scheduling store (one SQL class; a port only because `domain` and `application` may not import
the database)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import date, datetime

from stockdesk.notifications.application import DigestRow
from stockdesk.scheduling.domain.model import Delivery, RunStatus, Schedule, ScheduleRun


class IScheduleStore(ABC):
    @abstractmethod
    def add(self, schedule: Schedule) -> Schedule:
        """Store a new schedule (ScheduleExists when the name is taken)."""

    @abstractmethod
    def get(self, name: str) -> Schedule | None: ...

    @abstractmethod
    def list(self) -> list[Schedule]:
        """Every schedule, by name."""

    @abstractmethod
    def remove(self, name: str) -> bool:
        """Delete the schedule and its runs; False when there was none."""

    @abstractmethod
    def claim(self, schedule: Schedule, day: date, fired_at: datetime, owner: str) -> ScheduleRun | None:
        """Insert the (schedule, day) run as `claimed` by `owner`; None when another runner has it (the
        UNIQUE constraint refused the insert)."""

    @abstractmethod
    def take_over(self, run_id: int, previous_owner: str | None, owner: str) -> bool:
        """Make `owner` the run's runner if `previous_owner` still is (a dead runner's run, resumed by
        one process only); True when it did."""

    @abstractmethod
    def run(self, schedule: str, day: date) -> ScheduleRun | None: ...

    @abstractmethod
    def run_by_job(self, job_id: str) -> ScheduleRun | None: ...

    @abstractmethod
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
        """Change the given fields of a run (None: left as it is)."""

    @abstractmethod
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
        """The run's end: its status, the digest's table, the deliveries and notes, in one write."""

    @abstractmethod
    def runs(self, schedule: str, limit: int = 20) -> list[ScheduleRun]:
        """The schedule's runs, the newest day first."""

    @abstractmethod
    def last_finished(self, schedule: str, before: date) -> ScheduleRun | None:
        """The newest `done` run of the schedule on a day before `before` (the digest compares to it)."""

    @abstractmethod
    def open_runs(self) -> list[ScheduleRun]:
        """Runs claimed or running (a restarted scheduler resumes those whose runner died)."""
