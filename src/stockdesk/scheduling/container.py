"""Composition root of scheduling: the SQL store and the services over it. What a run does in other
contexts (`RunPorts`) and what a schedule names there (`References`) are given by the app's container."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from functools import cached_property

from stockdesk.scheduling.application import (
    CATCH_UP,
    POLL_SECONDS,
    References,
    RunPorts,
    ScheduledRuns,
    SchedulerLoop,
    ScheduleService,
    real_clock,
)
from stockdesk.scheduling.infrastructure.store import SqlScheduleStore
from stockdesk.shared.db import Database
from stockdesk.shared.tasks import ITaskStore


class SchedulingContainer:
    def __init__(
        self,
        database: Database,
        tasks: ITaskStore,
        references: References,
        ports: Callable[[], RunPorts],
        catch_up: timedelta = CATCH_UP,
    ):
        self._catch_up = catch_up
        self._database = database
        self._tasks = tasks
        self._references = references
        self._ports = ports

    @cached_property
    def store(self) -> SqlScheduleStore:
        return SqlScheduleStore(self._database)

    @cached_property
    def schedules(self) -> ScheduleService:
        return ScheduleService(self.store, self._references)

    @cached_property
    def runs(self) -> ScheduledRuns:
        return ScheduledRuns(self.store, self._tasks, self._ports())

    def loop(
        self,
        clock: Callable[[], datetime] = real_clock,
        say: Callable[[str], None] = lambda _l: None,
        *,
        poll_seconds: float = POLL_SECONDS,
        catch_up: timedelta | None = None,
    ) -> SchedulerLoop:
        """The loop; `catch_up` None takes the settings' window (STOCKDESK_SCHEDULER_CATCH_UP_HOURS)."""
        window = self._catch_up if catch_up is None else catch_up
        return SchedulerLoop(
            self.store, self.runs, clock, say=say, poll_seconds=poll_seconds, catch_up=window
        )
