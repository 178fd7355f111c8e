"""When a schedule fires: a cron expression from `--at` and `--days`, read in the schedule's time zone.

croniter walks the expression over local wall-clock time of the zone, so 16:30 stays 16:30 across a
daylight-saving change (America/New_York fires at 20:30 UTC in summer and 21:30 UTC in winter). A
missing local time (a spring-forward gap) fires at the first valid moment after it.
"""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from croniter import croniter

from stockdesk.scheduling.domain.errors import BadSchedule

DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_DAY_PART = re.compile(r"^(sun|mon|tue|wed|thu|fri|sat)(-(sun|mon|tue|wed|thu|fri|sat))?$")
_AT = re.compile(r"^(\d{1,2}):(\d{2})$")


def parse_at(text: str) -> str:
    """HH:MM (24-hour) normalised to two digits each; one-line error otherwise."""
    found = _AT.match(text.strip())
    if not found or int(found.group(1)) > 23 or int(found.group(2)) > 59:
        raise BadSchedule(f"--at {text!r} is not a time of day HH:MM (00:00 to 23:59)", "BAD_SCHEDULE_TIME")
    return f"{int(found.group(1)):02d}:{found.group(2)}"


def parse_tz(text: str) -> str:
    """An IANA zone name known to zoneinfo (Asia/Shanghai, America/New_York, UTC)."""
    name = text.strip()
    try:
        if not name or name.startswith(("/", ".")) or ".." in name:
            raise ValueError(name)
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise BadSchedule(
            f"--tz {text!r} is not a known time zone (an IANA name such as Asia/Shanghai)", "BAD_TIMEZONE"
        ) from None
    return name


def parse_days(text: str) -> str:
    """Days of the week as cron names: `mon-fri`, `mon,wed,fri`, `sat-sun`, or `daily`/`*`."""
    cleaned = text.strip().lower().replace(" ", "")
    if cleaned in ("daily", "*", "mon-sun", "sun-sat"):
        return "*"
    parts = cleaned.split(",")
    if not cleaned or not all(_DAY_PART.match(p) for p in parts):
        raise BadSchedule(
            f"--days {text!r} is not a list of days (e.g. mon-fri, mon,wed,fri, daily)", "BAD_SCHEDULE_DAYS"
        )
    return cleaned


def cron_expression(at: str, days: str) -> str:
    """`16:30` on `mon-fri` is `30 16 * * mon-fri`."""
    hour, minute = parse_at(at).split(":")
    return f"{int(minute)} {int(hour)} * * {parse_days(days)}"


def next_fire(at: str, days: str, tz: str, after: datetime) -> datetime:
    """The first fire time strictly after `after` (an aware datetime), in the schedule's zone."""
    zone = ZoneInfo(parse_tz(tz))
    start = after.astimezone(zone)
    return croniter(cron_expression(at, days), start).get_next(datetime).astimezone(zone)


def fires_between(at: str, days: str, tz: str, after: datetime, until: datetime) -> list[datetime]:
    """Every fire time in (after, until], oldest first (what a loop that slept through them owes)."""
    found: list[datetime] = []
    moment = after
    while (moment := next_fire(at, days, tz, moment)) <= until:
        found.append(moment)
    return found
