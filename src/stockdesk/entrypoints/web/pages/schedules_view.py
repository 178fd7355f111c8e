"""The schedules pages' view models: each schedule as `schedule list` shows it (ScheduleService.views),
its runs as `schedule runs` does, with every sentence the run recorded worded in the page's language.

A run keeps its reason and notes as the English the scheduler logs; the ones the scheduler writes
itself (a day without bars, a sync's and a paper step's outcome) are read back here into catalogue
keys with their values, which stay user data (a date, a count, a name); anything else (a job's error)
is shown as recorded, marked as data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from stockdesk.scheduling.application import ScheduleRun, ScheduleView
from stockdesk.scheduling.domain.model import OPEN_STATUSES

# what the scheduler records (scheduling.application.steps / runs, entrypoints.scheduling), by pattern
RECORDED = (
    (re.compile(r"not a trading day in the store: no bars for (?P<day>\S+)"), "schedules.said.no_bars"),
    (re.compile(r"no data provider configured: not synced"), "schedules.said.not_synced"),
    (re.compile(r"synced (?P<count>\d+) symbols to (?P<day>\S+): (?P<detail>.*)"), "schedules.said.synced"),
    (re.compile(r"sync failed: (?P<detail>.*)"), "schedules.said.sync_failed"),
    (
        re.compile(r"paper book (?P<book>\S+): (?P<count>\d+) day\(s\) stepped to (?P<day>\S+)"),
        "schedules.said.paper",
    ),
    (re.compile(r"the run's job did not finish"), "schedules.said.unfinished"),
)
STAMP = "%Y-%m-%d %H:%M %z"


@dataclass(frozen=True)
class Said:
    """A recorded sentence: its catalogue key and values (`key` None: shown as recorded, as data)."""

    text: str
    key: str | None = None
    values: dict[str, str] = field(default_factory=dict)


def said(text: str | None) -> Said | None:
    if not text:
        return None
    for pattern, key in RECORDED:
        found = pattern.fullmatch(text.strip())
        if found:
            return Said(text, key, found.groupdict())
    return Said(text)


@dataclass(frozen=True)
class ChannelRow:
    name: str
    state: str  # ok | failed | failing | not_configured
    failures: int = 0

    @property
    def flagged(self) -> bool:
        return self.state in ("failing", "not_configured")


@dataclass(frozen=True)
class DeliveryRow:
    channel: str
    status: str  # sent | failed | already_sent
    attempts: int
    error: str | None


@dataclass(frozen=True)
class RunRow:
    day: str
    status: str
    reason: Said | None
    symbols: list[tuple[str, str]]  # (symbol, action)
    deliveries: list[DeliveryRow]
    notes: list[Said]
    job_id: str | None
    job_href: str | None
    report_href: str | None


@dataclass(frozen=True)
class ScheduleRow:
    name: str
    watchlist: str
    at: str
    tz: str
    days: str
    mode: str
    paper: str | None
    language: str
    next_fire: str
    last_run: RunRow | None
    channels: list[ChannelRow]

    @property
    def failing(self) -> bool:
        return any(c.flagged for c in self.channels)


def _channels(view: ScheduleView) -> list[ChannelRow]:
    rows = []
    for channel in view.channels:
        health = channel.health
        failures = health.consecutive_failures if health else 0
        if not channel.configured:
            rows.append(ChannelRow(channel.name, "not_configured"))
        elif health is not None and health.failing:
            rows.append(ChannelRow(channel.name, "failing", failures))
        else:
            rows.append(ChannelRow(channel.name, "failed" if failures else "ok", failures))
    return rows


def report_href(schedule: str, day: date) -> str:
    """The run's batch index, served by the report route (its links to each symbol's report are
    relative, so the folder's address ends in a slash)."""
    return f"/schedules/{schedule}/{day.isoformat()}/"


def run_row(run: ScheduleRun) -> RunRow:
    job_href = None
    if run.job_id:
        job_href = "/jobs" if run.status in OPEN_STATUSES else "/jobs/history?kind=scheduled_run"
    return RunRow(
        day=run.day.isoformat(), status=run.status.value, reason=said(run.reason),
        symbols=[(r.symbol, r.action) for r in run.rows],
        deliveries=[DeliveryRow(d.channel, d.status, d.attempts, d.error) for d in run.deliveries],
        notes=[n for n in (said(note) for note in run.notes) if n is not None],
        job_id=run.job_id, job_href=job_href,
        report_href=report_href(run.schedule, run.day) if run.report_dir else None,
    )  # fmt: skip


def schedule_row(view: ScheduleView) -> ScheduleRow:
    s = view.schedule
    return ScheduleRow(
        name=s.name, watchlist=s.watchlist, at=s.at, tz=s.tz, days=s.days, mode=s.mode, paper=s.paper,
        language=s.language, next_fire=view.next_fire.strftime(STAMP),
        last_run=run_row(view.last_run) if view.last_run else None, channels=_channels(view),
    )  # fmt: skip


def today_in(view: ScheduleView) -> str:
    """The Run now form's date: today in the schedule's time zone (as `schedule run-now` defaults)."""
    return datetime.now(ZoneInfo(view.schedule.tz)).date().isoformat()


def page_context(view: ScheduleView, runs: list[ScheduleRun], **extra: Any) -> dict[str, Any]:
    return {"s": schedule_row(view), "runs": [run_row(r) for r in runs], "today": today_in(view), **extra}
