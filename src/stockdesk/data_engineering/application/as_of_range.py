"""Is an as-of date inside a symbol's stored daily bars? The one rule every analysis entry uses.

- before the first stored bar: refused (nothing was stored yet, no expert could have data);
- after the newest stored bar by more than MAX_DAYS_AFTER trading days: refused (the store is
  stale for that date: sync first). Trading days are counted on the store's own calendar, the
  days any stored symbol of the same market has a bar (so a holiday week does not count), and
  beyond the market's newest stored day, where the store knows no calendar, Monday to Friday;
- a symbol without any stored bar: refused for every date;
- no as-of at all ("latest"): the newest stored bar's date, marked `clamped`.
The refusal is one line naming the stored range, e.g. `000338.SZ: as-of 2030-01-01 is after the
stored bars (2007-04-30..2020-06-16); sync or choose a date in that range`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta

import numpy as np
from pydantic import BaseModel

from stockdesk.data_engineering.domain.dtos import RangeSummary
from stockdesk.data_engineering.domain.exceptions import AsOfOutOfRangeError
from stockdesk.data_engineering.domain.ports import IMarketDataRepository
from stockdesk.data_engineering.domain.symbols import market_of, normalize_symbol

MAX_DAYS_AFTER = 5
ADVICE = {True: "sync or choose a date in that range", False: "choose a date in that range"}
SHOWN = 5  # refused symbols named in one line; the rest are counted


class AsOfCheckDTO(BaseModel):
    """The date an analysis of `symbol` runs as of, and the stored bars it lies in."""

    symbol: str
    as_of: date
    first: date
    last: date
    clamped: bool = False  # no date was asked for: the newest stored bar's date was taken


def weekdays_between(after: date, until: date) -> int:
    """Monday-to-Friday days in (after, until]."""
    if until <= after:
        return 0
    return int(np.busday_count(after + timedelta(days=1), until + timedelta(days=1)))


def refusal(symbol: str, as_of: date | None, span: RangeSummary | None, side: str) -> dict[str, str | None]:
    return {
        "symbol": symbol,
        "as_of": as_of.isoformat() if as_of else None,
        "first": span.first.isoformat() if span and span.first else None,
        "last": span.last.isoformat() if span and span.last else None,
        "side": side,
    }


def refusal_line(found: dict[str, str | None]) -> str:
    if found["side"] == "none":
        return f"{found['symbol']}: no daily bars are stored; sync it first"
    stored = f"the stored bars ({found['first']}..{found['last']})"
    advice = ADVICE[found["side"] == "after"]
    return f"{found['symbol']}: as-of {found['as_of']} is {found['side']} {stored}; {advice}"


def refused_error(refused: list[dict[str, str | None]]) -> AsOfOutOfRangeError:
    if len(refused) == 1:
        return AsOfOutOfRangeError(refusal_line(refused[0]), details=refused[0])
    shown = "; ".join(refusal_line(r).split("; ")[0] for r in refused[:SHOWN])
    more = f" (+{len(refused) - SHOWN} more)" if len(refused) > SHOWN else ""
    return AsOfOutOfRangeError(
        f"{len(refused)} symbols are outside their stored bars: {shown}{more}; sync or choose another date",
        details={**refused[0], "refused": refused},
    )


class CheckAsOfUseCase:
    def __init__(self, repository: IMarketDataRepository):
        self._repository = repository

    def execute(self, symbols: Sequence[str], as_of: date | None) -> dict[str, AsOfCheckDTO]:
        """Each symbol's checked date; AsOfOutOfRangeError naming every refused symbol otherwise."""
        names = [normalize_symbol(s) for s in symbols]
        spans = self._repository.bar_spans(names)
        calendars: dict[tuple[str, date], list[date]] = {}
        checked: dict[str, AsOfCheckDTO] = {}
        refused: list[dict[str, str | None]] = []
        for symbol in names:
            span = spans.get(symbol)
            if span is None or span.first is None or span.last is None:
                refused.append(refusal(symbol, as_of, span, "none"))
                continue
            if as_of is None:
                checked[symbol] = AsOfCheckDTO(
                    symbol=symbol, as_of=span.last, first=span.first, last=span.last, clamped=True
                )
                continue
            side = self._side(symbol, span.first, span.last, as_of, calendars)
            if side:
                refused.append(refusal(symbol, as_of, span, side))
                continue
            checked[symbol] = AsOfCheckDTO(symbol=symbol, as_of=as_of, first=span.first, last=span.last)
        if refused:
            raise refused_error(refused)
        return checked

    def _side(
        self, symbol: str, first: date, last: date, as_of: date, calendars: dict[tuple[str, date], list[date]]
    ) -> str | None:
        if as_of < first:
            return "before"
        if as_of <= last:
            return None
        key = (market_of(symbol), last)
        if key not in calendars:
            calendars[key] = self._repository.market_bar_days(*key)
        return "after" if trading_days_after(last, as_of, calendars[key]) > MAX_DAYS_AFTER else None


def trading_days_after(last: date, as_of: date, market_days: list[date]) -> int:
    """Trading days in (last, as_of]: the market's stored days there, then weekdays beyond its newest."""
    known = [d for d in market_days if last < d <= as_of]
    newest = max([last, *market_days])
    return len(known) + weekdays_between(newest, as_of)
