"""The scheduler's loop: every few seconds, fire what fell due since the last look, and resume runs
whose process died. The clock is a parameter: `--pretend-now` starts it at a past moment and lets it
run at real speed, to rehearse on the sample store (which ends in 2020).

A fire missed while no scheduler ran (the machine was off at 16:30, the process restarted at 18:00)
is caught up at start when it fell within the last `catch_up` (6 h by default) and its day has no
run yet: a restart never runs a day twice, and a week-old fire is not sent as news."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from stockdesk.scheduling.application.runs import Fired, ScheduledRuns
from stockdesk.scheduling.domain.ports import IScheduleStore
from stockdesk.scheduling.domain.timing import fires_between

logger = logging.getLogger(__name__)
Clock = Callable[[], datetime]
POLL_SECONDS = 2.0
CATCH_UP = timedelta(hours=6)


def real_clock() -> datetime:
    return datetime.now(UTC)


def pretend_clock(start: datetime, monotonic: Callable[[], float] = time.monotonic) -> Clock:
    """A clock that reads `start` now and runs at real speed from there."""
    origin = monotonic()
    return lambda: start + timedelta(seconds=monotonic() - origin)


class SchedulerLoop:
    def __init__(
        self,
        store: IScheduleStore,
        runs: ScheduledRuns,
        clock: Clock = real_clock,
        *,
        say: Callable[[str], None] = lambda _line: None,
        poll_seconds: float = POLL_SECONDS,
        catch_up: timedelta = CATCH_UP,
    ):
        self._store = store
        self._runs = runs
        self._clock = clock
        self._say = say
        self._poll = poll_seconds
        self._started = clock()
        self._last = self._started - max(catch_up, timedelta(0))

    def _report(self, fired: Fired) -> None:
        line = fired.line()
        logger.info("scheduler: %s", line)
        self._say(line)

    def tick(self) -> list[Fired]:
        """Fire every schedule's fire times in (the last look, now], oldest first; resume orphans."""
        done = list(self._runs.recover())
        for fired in done:
            self._report(fired)
        now = self._clock()
        for schedule in self._store.list():
            for moment in fires_between(schedule.at, schedule.days, schedule.tz, self._last, now):
                missed = moment <= self._started
                if missed and self._runs.has_run(schedule, moment):
                    continue  # ran (or runs) already: a restart is not a second fire
                try:
                    fired = self._runs.fire(schedule, moment, caught_up=missed)
                except Exception:  # one schedule's failure never stops the others or the loop
                    logger.exception("scheduler: schedule %s at %s failed", schedule.name, moment)
                    self._say(f"{moment:%Y-%m-%d %H:%M %z} {schedule.name}: failed (see the log)")
                    continue
                done.append(fired)
                self._report(fired)
        self._last = now
        return done

    def run(self, stop: threading.Event) -> None:
        """Look every `poll_seconds` until `stop` is set."""
        self._say(f"scheduler started; clock at {self._clock():%Y-%m-%d %H:%M:%S %z}")
        while not stop.is_set():
            self.tick()
            stop.wait(self._poll)
        self._say("scheduler stopped")
