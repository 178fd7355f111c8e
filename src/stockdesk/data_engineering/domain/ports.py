"""Ports of the data context: the store, and the market data providers behind `data sync`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from datetime import date

import pandas as pd

from stockdesk.data_engineering.domain.dtos import (
    BarChecksum,
    DailyBarDTO,
    DailyValuationDTO,
    FilingDTO,
    FilingPageDTO,
    FinancialReportDTO,
    IntradayBarDTO,
    IntradayCoverage,
    IntradayWriteCounts,
    NewsItemDTO,
    RangeSummary,
    SecurityDTO,
    TextHitDTO,
)


class IMarketDataRepository(ABC):
    """The point-in-time market store: daily data, 5-minute bars, text, and coverage reads over all of
    it. Writes are upserts of canonical frames (see `frames.py`)."""

    # writes: one call is one transaction; returns rows written (inserted or changed)
    @abstractmethod
    def upsert_securities(self, frame: pd.DataFrame) -> int: ...

    @abstractmethod
    def upsert_bars(self, frame: pd.DataFrame) -> int: ...

    @abstractmethod
    def upsert_valuations(self, frame: pd.DataFrame) -> int: ...

    @abstractmethod
    def upsert_financials(self, frame: pd.DataFrame) -> int: ...

    @abstractmethod
    def upsert_news(self, frame: pd.DataFrame) -> int: ...

    @abstractmethod
    def upsert_filings(self, frame: pd.DataFrame) -> int: ...

    @abstractmethod
    def upsert_filing_pages(self, frame: pd.DataFrame) -> int:
        """Filing documents as clean text pages (symbol, accession_number, page_no, text)."""

    @abstractmethod
    def write_batch(self, frames: dict[str, pd.DataFrame]) -> dict[str, int]:
        """Several tables in one transaction (all-or-nothing per imported file). `bars_5m` rows are
        written as `write_intraday_bars` writes them; its count is of bars new or changed."""

    # reads: everything is as of a date; nothing after it is visible
    @abstractmethod
    def get_security(self, symbol: str) -> SecurityDTO | None: ...

    @abstractmethod
    def list_securities(self) -> list[SecurityDTO]: ...

    @abstractmethod
    def get_bars(
        self, symbol: str, as_of: date, start: date | None = None, end: date | None = None
    ) -> list[DailyBarDTO]: ...

    @abstractmethod
    def get_valuations(
        self, symbol: str, as_of: date, start: date | None = None, end: date | None = None
    ) -> list[DailyValuationDTO]: ...

    @abstractmethod
    def get_financials(self, symbol: str, as_of: date, limit: int | None = None) -> list[FinancialReportDTO]:
        """Latest announced version of each period with ann_date <= as_of, newest period first."""

    @abstractmethod
    def get_news(self, symbol: str, as_of: date, limit: int = 50) -> list[NewsItemDTO]: ...

    @abstractmethod
    def get_filings(self, symbol: str, as_of: date, forms: list[str] | None = None) -> list[FilingDTO]: ...

    @abstractmethod
    def get_filing_pages(self, symbol: str, accession_number: str, as_of: date) -> list[FilingPageDTO]:
        """Pages of one filing filed on or before `as_of`, by page number (none without a filing row)."""

    @abstractmethod
    def search_text(
        self, query: str, *, symbol: str | None, start: date | None, end: date, limit: int
    ) -> list[TextHitDTO]:
        """Full-text search over news and filing pages published in [start, end], best first."""

    @abstractmethod
    def bars_frame(self, symbols: list[str] | None, as_of: date, start: date | None = None) -> pd.DataFrame:
        """Bars of many symbols as one canonical frame (for vectorised consumers)."""

    @abstractmethod
    def valuations_frame(self, symbols: list[str], as_of: date, start: date | None = None) -> pd.DataFrame:
        """Daily valuations of many symbols as one canonical frame, by symbol and date."""

    @abstractmethod
    def financials_frame(self, symbols: list[str]) -> pd.DataFrame: ...

    @abstractmethod
    def first_text_date(self) -> date | None:
        """The earliest publication date of any stored news item or filing (None: no text at all)."""

    @abstractmethod
    def dividends_frame(self, symbols: list[str]) -> pd.DataFrame: ...

    @abstractmethod
    def splits_frame(self, symbols: list[str]) -> pd.DataFrame:
        """Every stored split of `symbols` (canonical SPLIT_COLUMNS); none: an empty frame."""

    @abstractmethod
    def bar_spans(self, symbols: list[str]) -> dict[str, RangeSummary]:
        """Count, first and last daily bar of each symbol (one grouped read); no bars: absent."""

    @abstractmethod
    def bar_checksums(self, symbols: list[str], start: date, end: date | None) -> dict[str, BarChecksum]:
        """Each symbol's bars in [start, end] (None: open-ended) counted and summed (one grouped
        read); no bars there: absent."""

    @abstractmethod
    def market_bar_days(self, market: str, after: date) -> list[date]:
        """The days after `after` on which any stored symbol of `market` has a daily bar, oldest first."""

    @abstractmethod
    def symbols_with_reported_valuations(self, symbols: list[str]) -> set[str]: ...

    @abstractmethod
    def counts(self) -> dict[str, int]: ...

    @abstractmethod
    def table_frames(self, kind: str, chunk_rows: int = 100_000) -> Iterator[pd.DataFrame]:
        """Every stored row of one table (a key of `counts()`), canonical columns, in key order.

        Chunked so that exporting a market-sized store keeps memory bounded.
        """

    # 5-minute bars (`bars_5m`), keyed by symbol and the bar's start in UTC
    @abstractmethod
    def write_intraday_bars(self, frame: pd.DataFrame) -> IntradayWriteCounts:
        """Upsert canonical INTRADAY_COLUMNS rows (`ts_utc` timezone-aware UTC) in one transaction.

        Rows equal to the stored ones are not rewritten (their `imported_at` stays); a NULL amount
        never erases a stored one.
        """

    @abstractmethod
    def get_intraday_bars(
        self,
        symbol: str,
        as_of: date,
        start: date | None = None,
        end: date | None = None,
        limit: int | None = None,
    ) -> list[IntradayBarDTO]:
        """5-minute bars of exchange dates in [start, min(end, as_of)], oldest first; with `limit`,
        only the newest `limit` of them (still oldest first)."""

    @abstractmethod
    def intraday_span(self, symbol: str, as_of: date) -> IntradayCoverage:
        """Count, first and last bar start of the symbol's 5-minute bars of exchange dates <= as_of
        (one aggregate read)."""

    @abstractmethod
    def count_intraday_bars(self, symbol: str | None = None) -> int: ...

    # coverage of the whole store, as frames (one grouped query per table, not one per symbol)
    @abstractmethod
    def ranges(self) -> pd.DataFrame:
        """One row per (symbol, dataset) with data: columns symbol, dataset, rows, first, last (dates)."""

    @abstractmethod
    def bar_days(self, symbols: list[str] | None = None) -> pd.DataFrame:
        """Every stored daily bar's (symbol, trade_date), trade_date as datetime64; all symbols if None."""

    @abstractmethod
    def sync_marks(self) -> pd.DataFrame:
        """One row per synced symbol: symbol, synced_through (date), last_failure (datetime or None)."""


class IMarketDataProvider(ABC):
    """A remote source for one or more markets; returns canonical frames."""

    name: str
    markets: tuple[str, ...]

    @abstractmethod
    def security(self, symbol: str) -> pd.DataFrame: ...

    @abstractmethod
    def bars(self, symbol: str, start: date, end: date) -> pd.DataFrame: ...

    @abstractmethod
    def valuations(self, symbol: str, start: date, end: date) -> pd.DataFrame: ...

    @abstractmethod
    def financials(self, symbol: str) -> pd.DataFrame: ...

    serves_bars_5m: bool = False  # True where `bars_5m` is implemented (AkShare, yfinance)

    def bars_5m(self, symbol: str, start: date, end: date) -> pd.DataFrame:
        """5-minute bars for `data sync --datasets bars_5m`: canonical INTRADAY_COLUMNS (bar starts in
        aware UTC) of exchange dates [start, end]; an empty frame when the source has none there. A
        window the source cannot serve at all (yfinance: older than its 60 days) is refused with an
        error whose one-line message says so. Asked only of providers with `serves_bars_5m`."""
        raise NotImplementedError(f"{self.name} serves no 5-minute bars")


class ISyncStateRepository(ABC):
    """Sync bookkeeping: failures with reasons, and what is already done (for resume)."""

    @abstractmethod
    def record_failure(self, run_id: str, provider: str, symbol: str, dataset: str, reason: str) -> None: ...

    @abstractmethod
    def mark_done(self, symbol: str, dataset: str, through: date) -> None: ...

    @abstractmethod
    def done_through(self, symbol: str, dataset: str) -> date | None: ...

    @abstractmethod
    def failures(self, run_id: str | None = None) -> list[dict[str, str]]: ...


class INewsProvider(ABC):
    """A source of recent per-stock news (AkShare for A-shares, yfinance for US listings)."""

    name: str

    @abstractmethod
    def news(self, symbol: str, start: date, end: date) -> pd.DataFrame:
        """Canonical NEWS_COLUMNS published on days [start, end], times in naive UTC."""
