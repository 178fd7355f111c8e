"""Which (symbol, date) points an evaluation scores: every N days of the market's trading calendar.

The calendar is the days any symbol of the universe traded (volume > 0): the market's trading
calendar as the store knows it, the same for every symbol, so every date of the schedule is a
cross-section (rank IC needs several symbols on one date). The schedule is the calendar's 1st,
(1 + every)th, ... day within [start, end]. A symbol is scored on a date when it has traded by then
and its last traded day is at most STALE_DAYS calendar days before (a long suspension or a
delisting drops it rather than scoring prices it no longer has).
"""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

from stockdesk.backtest.application import trading_bars

STALE_DAYS = 10


def evaluation_dates(bars: pd.DataFrame, start: date, end: date, every: int) -> dict[str, list[date]]:
    """Per symbol: the schedule's dates on which it is scored (see the module docstring)."""
    traded = trading_bars(bars)
    if traded.empty:
        return {}
    days = pd.to_datetime(traded["trade_date"]).to_numpy(dtype="datetime64[ns]")
    calendar = np.unique(days)
    inside = calendar[
        (calendar >= np.datetime64(pd.Timestamp(start))) & (calendar <= np.datetime64(pd.Timestamp(end)))
    ]
    schedule = inside[::every]
    out: dict[str, list[date]] = {}
    for symbol, group in traded.assign(_day=days).groupby("symbol", sort=True):
        own = np.sort(group["_day"].to_numpy())
        last = np.searchsorted(own, schedule, side="right") - 1  # its last traded day by each date
        has = last >= 0
        gap = np.full(len(schedule), len(calendar))
        gap[has] = np.searchsorted(calendar, schedule[has]) - np.searchsorted(calendar, own[last[has]])
        chosen = schedule[has & (gap <= STALE_DAYS)]
        if len(chosen):
            out[str(symbol)] = [pd.Timestamp(d).date() for d in chosen]
    return out


def task_key(symbol: str, day: date) -> str:
    return f"{symbol}|{day.isoformat()}"


def parse_key(key: str) -> tuple[str, date]:
    symbol, day = key.rsplit("|", 1)
    return symbol, date.fromisoformat(day)
