"""Which (symbol, date) points an evaluation scores: every N trading days of each symbol's calendar."""

from __future__ import annotations

from datetime import date

import pandas as pd

from stockdesk.shared.execution import trading_bars


def evaluation_dates(bars: pd.DataFrame, start: date, end: date, every: int) -> dict[str, list[date]]:
    """Per symbol: its 1st, (1 + every)th, ... trading day within [start, end].

    A trading day is one with a bar that traded (volume > 0), so a suspension shifts the
    schedule instead of placing a verdict on a day the stock could not be analysed afresh.
    """
    traded = trading_bars(bars)
    inside = traded[
        (traded["trade_date"] >= pd.Timestamp(start)) & (traded["trade_date"] <= pd.Timestamp(end))
    ]
    return {
        str(symbol): [d.date() for d in days.iloc[::every]]
        for symbol, days in inside.groupby("symbol", sort=True)["trade_date"]
    }


def task_key(symbol: str, day: date) -> str:
    return f"{symbol}|{day.isoformat()}"


def parse_key(key: str) -> tuple[str, date]:
    symbol, day = key.rsplit("|", 1)
    return symbol, date.fromisoformat(day)
