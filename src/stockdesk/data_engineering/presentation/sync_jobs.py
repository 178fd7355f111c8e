"""Start `data sync` as a server job: the one way the REST API and the web UI both do it.

The request is read like the CLI's (symbols comma- or space-separated, `to` defaults to today and
`from` to five years before it), bounded like every job (symbols, window), and checked by the sync
service (market, symbols, dates) before it is queued, so a bad request is a 400 with nothing run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date, timedelta

from stockdesk.data_engineering.application.sync_runs import SyncProgress, SyncRuns
from stockdesk.shared.access.bounds import RequestBounds
from stockdesk.shared.errors import BadRequestException

DEFAULT_YEARS = 5


def split_symbols(text: str | Iterable[str]) -> list[str]:
    """`600519.SH, 000001.SZ` (commas, spaces or new lines) -> the symbols in order, without repeats."""
    parts = (
        re.split(r"[\s,;]+", text)
        if isinstance(text, str)
        else [p for t in text for p in re.split(r"[\s,;]+", t)]
    )
    return list(dict.fromkeys(p.strip() for p in parts if p.strip()))


def sync_window(start: date | None, end: date | None, today: date | None = None) -> tuple[date, date]:
    """(first, last): `end` or today, `start` or five years before the last day."""
    last = end or today or date.today()
    return start or last - timedelta(days=DEFAULT_YEARS * 365), last


def launch_sync(
    runs: SyncRuns,
    bounds: RequestBounds,
    market: str,
    symbols: str | Iterable[str],
    start: date | None = None,
    end: date | None = None,
    datasets: list[str] | None = None,
) -> SyncProgress:
    """Check the request (400/422) and queue the run; its progress as started. `datasets` None: the
    daily ones (security, bars, valuations, financials); `bars_5m` is fetched only when named."""
    wanted = split_symbols(symbols)
    if not wanted:
        raise BadRequestException("give at least one symbol to sync", code="SYMBOL_REQUIRED")
    first, last = sync_window(start, end)
    bounds.check_universe(wanted)
    bounds.check_window(first, last)
    return runs.start(market, wanted, first, last, datasets)
