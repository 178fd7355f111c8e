"""Schedules: add (every field checked, references too), list with the next fire, the last run and the
health of each channel, remove."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from pydantic import BaseModel, Field

from stockdesk.notifications.application import ChannelHealth
from stockdesk.scheduling.domain.errors import BadSchedule, ScheduleNotFound
from stockdesk.scheduling.domain.model import NAME_RE, Language, Mode, Schedule, ScheduleRun
from stockdesk.scheduling.domain.ports import IScheduleStore
from stockdesk.scheduling.domain.timing import cron_expression, next_fire, parse_at, parse_days, parse_tz
from stockdesk.shared.errors import StockdeskError

MODES: tuple[Mode, ...] = ("rules", "experts", "full")
LANGUAGES: tuple[Language, ...] = ("en", "zh")


@dataclass(frozen=True)
class References:
    """What a schedule names in other contexts, read through their application interfaces.

    `watchlist_symbols(name)` raises when there is no such list; `channel_health()` is every configured
    channel's health by name; `paper_books()` the names of the open paper books."""

    watchlist_symbols: Callable[[str], list[str]]
    channel_health: Callable[[], dict[str, ChannelHealth]]
    paper_books: Callable[[], set[str]]


class ScheduleChannel(BaseModel):
    name: str
    configured: bool = Field(description="False: the channel was removed from stockdesk.toml")
    health: ChannelHealth | None = None


class ScheduleView(BaseModel):
    """A schedule as `schedule list` and GET /schedules show it."""

    schedule: Schedule
    cron: str = Field(description="the cron expression, read in the schedule's time zone")
    next_fire: datetime = Field(description="the next fire time, in the schedule's time zone")
    last_run: ScheduleRun | None = None
    channels: list[ScheduleChannel] = Field(default_factory=list)

    @property
    def failing(self) -> list[str]:
        """The channels that keep failing, or are no longer configured."""
        return [c.name for c in self.channels if not c.configured or (c.health and c.health.failing)]


def check_name(name: str) -> str:
    name = name.strip()
    if not NAME_RE.match(name):
        raise BadSchedule(
            f"schedule name {name!r} must be 1-40 letters, digits, '.', '_' or '-'", "BAD_SCHEDULE_NAME"
        )
    return name


class ScheduleService:
    def __init__(
        self,
        store: IScheduleStore,
        references: References,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ):
        self._store = store
        self._refs = references
        self._now = now

    def add(
        self,
        name: str,
        *,
        watchlist: str,
        at: str,
        tz: str,
        days: str = "mon-fri",
        mode: str = "rules",
        notify: list[str] | None = None,
        paper: str | None = None,
        language: str = "en",
    ) -> Schedule:
        """Store a schedule after checking each field (a one-line 400 naming the first bad one)."""
        schedule = Schedule(
            name=check_name(name), watchlist=self._watchlist(watchlist), at=parse_at(at), tz=parse_tz(tz),
            days=parse_days(days), mode=self._mode(mode), notify=self._channels(notify or []),
            paper=self._paper(paper), language=self._language(language), created_at=self._now(),
        )  # fmt: skip
        return self._store.add(schedule)

    @staticmethod
    def _language(language: str) -> Language:
        if language not in LANGUAGES:
            raise BadSchedule(
                f"--lang {language!r} is not one of {', '.join(LANGUAGES)}", "BAD_SCHEDULE_LANGUAGE"
            )
        return language  # type: ignore[return-value]

    def _watchlist(self, name: str) -> str:
        try:
            self._refs.watchlist_symbols(name.strip())
        except StockdeskError:
            raise BadSchedule(
                f"no watchlist named {name.strip()!r} (create it with `stockdesk watch add`)",
                "UNKNOWN_WATCHLIST",
            ) from None
        return name.strip()

    @staticmethod
    def _mode(mode: str) -> Mode:
        if mode not in MODES:
            raise BadSchedule(f"--mode {mode!r} is not one of {', '.join(MODES)}", "BAD_SCHEDULE_MODE")
        return mode  # type: ignore[return-value]

    def _channels(self, names: list[str]) -> list[str]:
        wanted = list(dict.fromkeys(n.strip() for n in names if n.strip()))
        known = self._refs.channel_health()
        unknown = [n for n in wanted if n not in known]
        if unknown:
            configured = ", ".join(sorted(known)) or "none is configured in stockdesk.toml"
            raise BadSchedule(
                f"unknown notification channel {', '.join(unknown)} (configured: {configured})",
                "UNKNOWN_CHANNEL",
            )
        return wanted

    def _paper(self, name: str | None) -> str | None:
        if name is None or not name.strip():
            return None
        if name.strip() not in self._refs.paper_books():
            raise BadSchedule(
                f"no paper book named {name.strip()!r} (open it with `stockdesk paper open`)",
                "UNKNOWN_PAPER_BOOK",
            )
        return name.strip()

    def get(self, name: str) -> Schedule:
        found = self._store.get(name.strip())
        if found is None:
            raise ScheduleNotFound(name.strip())
        return found

    def remove(self, name: str) -> None:
        if not self._store.remove(name.strip()):
            raise ScheduleNotFound(name.strip())

    def views(self, now: datetime | None = None) -> list[ScheduleView]:
        """Every schedule with its next fire after `now`, its newest run and its channels' health."""
        moment = now or self._now()
        health = self._refs.channel_health()
        return [self._view(s, moment, health) for s in self._store.list()]

    def view(self, name: str, now: datetime | None = None) -> ScheduleView:
        return self._view(self.get(name), now or self._now(), self._refs.channel_health())

    def _view(self, schedule: Schedule, now: datetime, health: dict[str, ChannelHealth]) -> ScheduleView:
        runs = self._store.runs(schedule.name, limit=1)
        return ScheduleView(
            schedule=schedule,
            cron=cron_expression(schedule.at, schedule.days),
            next_fire=next_fire(schedule.at, schedule.days, schedule.tz, now),
            last_run=runs[0] if runs else None,
            channels=[
                ScheduleChannel(name=n, configured=n in health, health=health.get(n)) for n in schedule.notify
            ],
        )
