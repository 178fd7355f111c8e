"""Application interface of scheduling: schedules, their runs (the `scheduled_run` job kind) and the loop."""

from stockdesk.scheduling.application.loop import (
    CATCH_UP,
    POLL_SECONDS,
    SchedulerLoop,
    pretend_clock,
    real_clock,
)
from stockdesk.scheduling.application.ports import RunPorts
from stockdesk.scheduling.application.runs import KIND, Fired, ScheduledRuns, pending_job
from stockdesk.scheduling.application.schedules import (
    MODES,
    References,
    ScheduleChannel,
    ScheduleService,
    ScheduleView,
)
from stockdesk.scheduling.domain.model import Delivery, RunStatus, Schedule, ScheduleRun

__all__ = [
    "CATCH_UP",
    "KIND",
    "MODES",
    "POLL_SECONDS",
    "Delivery",
    "Fired",
    "References",
    "RunPorts",
    "RunStatus",
    "Schedule",
    "ScheduleChannel",
    "ScheduleRun",
    "ScheduleService",
    "ScheduleView",
    "ScheduledRuns",
    "SchedulerLoop",
    "pending_job",
    "pretend_clock",
    "real_clock",
]
