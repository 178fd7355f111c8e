"""Intraday bars: the intervals served, exchange sessions, and aggregation of stored 5-minute bars.

The store keeps 5-minute bars only (`bars_5m`, each stamped with its START). Coarser intervals are
built here, within one trading day and one session: buckets are counted from the session's start, so
US 15m bars start at 09:30, 09:45, ... and 60m bars at 09:30, 10:30, ..., 15:30 (the last one cut at
the 16:00 close); A-shares' two sessions (09:30-11:30, 13:00-15:00) give 60m bars at 09:30, 10:30,
13:00 and 14:00, as Chinese terminals draw them. A bar outside every known session (a data quirk)
is bucketed on the clock from midnight. Aggregation: open = first, high = max, low = min,
close = last, volume = sum, amount = sum (None unless every bar has one).
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from stockdesk.data_engineering.domain.dtos import IntradayBarDTO
from stockdesk.shared.errors import BadRequestException

BASE_INTERVAL = "5m"
BASE_MINUTES = 5
INTERVAL_MINUTES = {"5m": 5, "15m": 15, "30m": 30, "60m": 60, "1h": 60}


def _hm(hours: int, minutes: int = 0) -> int:
    return hours * 60 + minutes


# exchange-local [start, end) of each session, in minutes after midnight
SESSIONS: dict[str, tuple[tuple[int, int], ...]] = {
    "CN": ((_hm(9, 30), _hm(11, 30)), (_hm(13), _hm(15))),
    "US": ((_hm(4), _hm(9, 30)), (_hm(9, 30), _hm(16)), (_hm(16), _hm(20))),  # pre, regular, after-hours
    "HK": ((_hm(9, 30), _hm(12)), (_hm(13), _hm(16))),
    "TW": ((_hm(9), _hm(13, 30)),),
}
_WHOLE_DAY = (0, _hm(24))


def interval_minutes(interval: str) -> int:
    """Minutes of a supported intraday interval; BadRequestException (INVALID_INTERVAL) otherwise."""
    minutes = INTERVAL_MINUTES.get((interval or "").strip().lower())
    if minutes is None:
        supported = ", ".join(INTERVAL_MINUTES)
        raise BadRequestException(
            f"intraday interval must be one of {supported} (got {interval!r})", code="INVALID_INTERVAL"
        )
    return minutes


def bucket_start(local: datetime, minutes: int, market: str) -> datetime:
    """Start (exchange-local) of the `minutes`-long bucket a bar starting at `local` falls in."""
    at = _hm(local.hour, local.minute)
    start, _end = next((s for s in SESSIONS.get(market, ()) if s[0] <= at < s[1]), _WHOLE_DAY)
    first = start + (at - start) // minutes * minutes
    return local.replace(hour=first // 60, minute=first % 60, second=0, microsecond=0)


def resample(bars: list[IntradayBarDTO], interval: str, market: str) -> list[IntradayBarDTO]:
    """5-minute bars (one symbol, oldest first) -> bars of `interval`, never across days or sessions."""
    minutes = interval_minutes(interval)
    if minutes == BASE_MINUTES:
        return bars
    groups: dict[tuple[date, datetime], list[IntradayBarDTO]] = {}
    for bar in bars:
        groups.setdefault((bar.trade_date, bucket_start(bar.ts, minutes, market)), []).append(bar)
    out = []
    for (trade_date, start), members in groups.items():
        amounts = [b.amount for b in members]
        out.append(
            IntradayBarDTO(
                symbol=members[0].symbol,
                interval=interval,
                ts=start,
                ts_utc=start.astimezone(UTC),
                trade_date=trade_date,
                open=members[0].open,
                high=max(b.high for b in members),
                low=min(b.low for b in members),
                close=members[-1].close,
                volume=sum(b.volume for b in members),
                amount=None if any(a is None for a in amounts) else sum(a for a in amounts if a is not None),
                bars=sum(b.bars for b in members),
            )
        )
    return out
