"""What a scheduled run does through other contexts, handed in as functions by the composition root
(the batch's worker and the store's calendar live in contexts this one reaches only that way)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from stockdesk.coordinator.application.batch_analysis import BatchAnalysisConfig, BatchRow
from stockdesk.notifications.application import DeliveryResult, Digest, DigestRow


@dataclass(frozen=True)
class RunPorts:
    """`symbols(watchlist)`; `market(symbols)`: the watchlist's market (CN, US, ...);
    `trading_day(market, day)`: the store has daily bars of that market on that day;
    `sync(market, symbols, day)`: None when no provider is configured, else it syncs and answers its
    outcome in words; `batch(config)`: runs (or resumes) the batch job and writes its reports and index,
    answering its rows; `digest_row(row, day, held)`: the digest's line of a batch row (name, close, the
    day's change, the plan's stop and target); `held(day)`: the symbols held that day; `deliver(digest,
    channel)`: one channel's delivery; `report_url(path)`: the public link of a report, None without a
    public URL; `paper_step(book, day)`: steps the paper book, answering its outcome in words."""

    symbols: Callable[[str], list[str]]
    market: Callable[[list[str]], str]
    trading_day: Callable[[str, date], bool]
    sync: Callable[[str, list[str], date], str] | None
    batch: Callable[[BatchAnalysisConfig], list[BatchRow]]
    digest_row: Callable[[BatchRow, date, bool], DigestRow]
    held: Callable[[date], set[str]]
    deliver: Callable[[Digest, str], DeliveryResult]
    report_url: Callable[[str], str | None]
    paper_step: Callable[[str, date], str]
    reports_root: Path
