"""A schedule (which watchlist, when, how, to whom) and one run of it (one per schedule and day)."""

from __future__ import annotations

import re
from datetime import date, datetime
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from stockdesk.notifications.application import DigestRow

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$"
NAME_RE = re.compile(NAME_PATTERN)
Mode = Literal["rules", "experts", "full"]
Language = Literal["en", "zh"]


class RunStatus(StrEnum):
    CLAIMED = "claimed"  # a runner took the day; its job is opened next
    RUNNING = "running"
    DONE = "done"
    SKIPPED = "skipped"  # not a trading day in the store: nothing ran
    FAILED = "failed"


OPEN_STATUSES = (RunStatus.CLAIMED, RunStatus.RUNNING)


class Schedule(BaseModel):
    """When and what: `at` is HH:MM in `tz`, on the `days` of the week (cron's names, e.g. mon-fri)."""

    id: int | None = None
    name: str = Field(pattern=NAME_PATTERN)
    watchlist: str = Field(min_length=1, max_length=64)
    at: str = Field(pattern=r"^\d{2}:\d{2}$", description="HH:MM, local time of `tz`")
    tz: str = Field(min_length=1, max_length=64, description="IANA time zone, e.g. Asia/Shanghai")
    days: str = Field(default="mon-fri", description="days of the week, cron style: mon-fri, mon,wed,fri")
    mode: Mode = Field(default="rules", description="rules: no LLM; experts: experts, no debate; full")
    notify: list[str] = Field(default_factory=list, description="channels of [notify.channels.*]")
    paper: str | None = Field(default=None, description="a paper book stepped after each run")
    language: Language = Field(default="en", description="the digest's language (en or zh)")
    created_at: datetime | None = None


class Delivery(BaseModel):
    """How the run's digest went to one channel."""

    channel: str
    status: str  # sent | failed | already_sent
    attempts: int = 0
    error: str | None = None


class ScheduleRun(BaseModel):
    """One run of a schedule: claimed once per (schedule, day) by one runner."""

    id: int
    schedule: str
    day: date = Field(description="the local date in the schedule's time zone at its fire time")
    status: RunStatus
    reason: str | None = Field(default=None, description="why it was skipped or failed, in words")
    job_id: str | None = None
    claimed_by: str | None = Field(default=None, description="host:pid of the runner that claimed it")
    fired_at: datetime
    finished_at: datetime | None = None
    report_dir: str | None = None
    rows: list[DigestRow] = Field(
        default_factory=list, description="the digest's table, kept for the next run"
    )
    deliveries: list[Delivery] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="sync and paper outcomes, in words")
