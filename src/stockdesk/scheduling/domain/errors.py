"""The scheduling errors: each a one-line message (CLI exit 2) with its own REST code."""

from __future__ import annotations

from stockdesk.shared.errors import BadRequestException, ConflictException, NotFoundException


class ScheduleNotFound(NotFoundException):
    def __init__(self, name: str):
        super().__init__(f"no schedule named {name!r}", code="SCHEDULE_NOT_FOUND", details={"name": name})


class ScheduleExists(ConflictException):
    def __init__(self, name: str):
        super().__init__(f"a schedule named {name!r} already exists", code="SCHEDULE_EXISTS")


class BadSchedule(BadRequestException):
    """A schedule's field that cannot be used; `code` names which (BAD_SCHEDULE_TIME, BAD_TIMEZONE, ...)."""

    def __init__(self, message: str, code: str):
        super().__init__(message, code=code)


class RunExists(ConflictException):
    """The schedule's run of that day was claimed already (it ran, was skipped, or is running)."""

    def __init__(self, name: str, day: str, status: str):
        super().__init__(
            f"schedule {name!r} already has a run on {day} ({status})",
            code="SCHEDULE_RUN_EXISTS",
            details={"name": name, "day": day, "status": status},
        )
