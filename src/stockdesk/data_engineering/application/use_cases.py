"""The application interface other contexts call (names from the specs). DTOs in, DTOs out."""

from __future__ import annotations

import hashlib
import json
from datetime import date, timedelta

import pandas as pd

from stockdesk.data_engineering.domain.dtos import (
    DailyBarDTO,
    DailyValuationDTO,
    FilingDTO,
    FilingPageDTO,
    FinancialReportDTO,
    IntradayBarDTO,
    NewsItemDTO,
    PriceHistoryDTO,
    RangeSummary,
    SecurityDTO,
    StockDataSummaryDTO,
    TextHitDTO,
)
from stockdesk.data_engineering.domain.exceptions import SymbolNotFoundError
from stockdesk.data_engineering.domain.intraday import interval_minutes, resample
from stockdesk.data_engineering.domain.ports import IMarketDataRepository
from stockdesk.data_engineering.domain.splits import (
    events,
    per_share_factors,
    rescaled,
    versions_on_daily_basis,
)
from stockdesk.data_engineering.domain.symbols import market_of, normalize_symbol


def _as_of(as_of: date | None) -> date:
    return as_of or date.today()


class GetStockBasicInfoUseCase:
    def __init__(self, repository: IMarketDataRepository):
        self._repository = repository

    def execute(self, symbol: str) -> SecurityDTO | None:
        """The security, or None when the store does not know it."""
        return self._repository.get_security(normalize_symbol(symbol))

    def require(self, symbol: str) -> SecurityDTO:
        security = self.execute(symbol)
        if security is None:
            shown = normalize_symbol(symbol)
            raise SymbolNotFoundError(f"该标的不存在: {shown} is not in the store", details={"symbol": shown})
        return security


class GetDailyBarsUseCase:
    def __init__(self, repository: IMarketDataRepository):
        self._repository = repository

    def execute(
        self, symbol: str, as_of: date | None = None, start: date | None = None, end: date | None = None
    ) -> list[DailyBarDTO]:
        return self._repository.get_bars(normalize_symbol(symbol), _as_of(as_of), start, end)


class TradingDayUseCase:
    """Is `day` a trading day of `market` in the store? There is no stored exchange calendar: a day is one
    when any stored symbol of the market has a daily bar on it (a weekend, a holiday, or a day not synced
    yet has none)."""

    def __init__(self, repository: IMarketDataRepository):
        self._repository = repository

    def execute(self, market: str, day: date) -> bool:
        days = self._repository.market_bar_days(market.upper(), day - timedelta(days=1))
        return bool(days) and days[0] == day


class GetIntradayBarsUseCase:
    """Intraday bars of one symbol, point in time: no bar of an exchange date after `as_of`.

    `interval` "5m" returns the stored bars; "15m", "30m", "60m"/"1h" aggregate them within each
    trading day and session (see `domain/intraday.py`). `start`/`end` are exchange dates (inclusive;
    `end` is clipped to `as_of`). Bars are oldest first, stamped with their start.
    """

    def __init__(self, repository: IMarketDataRepository):
        self._repository = repository

    def execute(
        self,
        symbol: str,
        as_of: date | None = None,
        start: date | None = None,
        end: date | None = None,
        interval: str = "5m",
    ) -> list[IntradayBarDTO]:
        interval = interval.strip().lower()
        interval_minutes(interval)  # an unsupported interval is a bad request before any read
        symbol = normalize_symbol(symbol)
        day = _as_of(as_of)
        last = min(end, day) if end else day
        if start and start > last:
            return []
        bars = self._repository.get_intraday_bars(symbol, day, start, last)
        return resample(bars, interval, market_of(symbol))

    def latest(self, symbol: str, as_of: date | None = None, count: int = 20) -> list[IntradayBarDTO]:
        """The newest `count` stored 5-minute bars of exchange dates up to `as_of`, oldest first."""
        return self._repository.get_intraday_bars(normalize_symbol(symbol), _as_of(as_of), limit=count)


class GetValuationDailiesForTickerUseCase:
    def __init__(self, repository: IMarketDataRepository):
        self._repository = repository

    def execute(
        self, symbol: str, as_of: date | None = None, start: date | None = None, end: date | None = None
    ) -> list[DailyValuationDTO]:
        return self._repository.get_valuations(normalize_symbol(symbol), _as_of(as_of), start, end)


class GetFinanceForTickerUseCase:
    def __init__(self, repository: IMarketDataRepository):
        self._repository = repository

    def execute(
        self, symbol: str, as_of: date | None = None, limit: int | None = None
    ) -> list[FinancialReportDTO]:
        """Reports announced on or before `as_of`, newest period first (latest version of each), with
        their per-share figures and share counts on the share basis of `as_of` (`domain/splits.py`:
        a report filed before a split that took effect by `as_of` is divided by its ratio)."""
        symbol, day = normalize_symbol(symbol), _as_of(as_of)
        reports = self._repository.get_financials(symbol, day, limit)
        if not reports:
            return reports
        return on_share_basis(reports, self._repository.splits_frame([symbol]), day)


class ListSecuritiesUseCase:
    def __init__(self, repository: IMarketDataRepository):
        self._repository = repository

    def execute(self) -> list[SecurityDTO]:
        """Every stored security, by symbol."""
        return self._repository.list_securities()


class GetPriceHistoryUseCase:
    """Closes of a whole universe in one read (a backtest needs them all; per-bar DTOs would be slow)."""

    def __init__(self, repository: IMarketDataRepository):
        self._repository = repository

    def execute(self, symbols: list[str], start: date, end: date) -> PriceHistoryDTO:
        frame = self._repository.bars_frame([normalize_symbol(s) for s in symbols], end, start)
        if frame.empty:
            return PriceHistoryDTO()
        factor = frame["adj_factor"].astype(float).fillna(1.0)
        return PriceHistoryDTO(
            symbol=frame["symbol"].tolist(),
            trade_date=frame["trade_date"].dt.date.tolist(),
            close=frame["close"].astype(float).tolist(),
            adj_close=(frame["close"].astype(float) * factor).tolist(),
        )


class GetMarketFramesUseCase:
    """Many symbols' stored history in one read each, as canonical pandas frames.

    For vectorised consumers (walk-forward evaluation): per-bar DTOs for 300 symbols x 3 years would
    cost more than the computation. Frames hold the store's column names; dates are Timestamps.
    Point in time is the consumer's job: it gets everything up to `end` and slices by date
    (financials: every announced version, with its `ann_date`).
    """

    def __init__(self, repository: IMarketDataRepository):
        self._repository = repository

    def bars(self, symbols: list[str], start: date | None, end: date) -> pd.DataFrame:
        return self._repository.bars_frame([normalize_symbol(s) for s in symbols], end, start)

    def valuations(self, symbols: list[str], start: date | None, end: date) -> pd.DataFrame:
        return self._repository.valuations_frame([normalize_symbol(s) for s in symbols], end, start)

    def bars_fingerprint(self, symbols: list[str], start: date, end: date | None) -> str:
        """A digest of the stored bars of `symbols` in [start, end] (None: open-ended), from one
        grouped read: it changes when a bar there is added, removed or changed, so a result computed
        from those bars can be kept until it does."""
        sums = self._repository.bar_checksums(sorted({normalize_symbol(s) for s in symbols}), start, end)
        text = json.dumps({s: c.model_dump(mode="json") for s, c in sorted(sums.items())}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()

    def first_text_date(self) -> date | None:
        """The earliest stored news or filing date: before it, a search of the store finds nothing."""
        return self._repository.first_text_date()

    def financial_versions(self, symbols: list[str]) -> pd.DataFrame:
        """Every version, made so that on any day each period's latest version announced by then is
        on that day's share basis (split-adjusted copies dated the day a split applies:
        `domain/splits.py: versions_on_daily_basis`), so a consumer slicing by `ann_date` needs no
        split logic of its own."""
        wanted = [normalize_symbol(s) for s in symbols]
        frame = self._repository.financials_frame(wanted)
        if not frame.empty:
            frame = versions_on_daily_basis(frame, self._repository.splits_frame(wanted))
        for column in ("end_date", "ann_date"):
            frame[column] = pd.to_datetime(frame[column])
        return frame


class GetNewsUseCase:
    def __init__(self, repository: IMarketDataRepository):
        self._repository = repository

    def execute(self, symbol: str, as_of: date | None = None, limit: int = 50) -> list[NewsItemDTO]:
        return self._repository.get_news(normalize_symbol(symbol), _as_of(as_of), limit)


class SearchStoredTextUseCase:
    """Full-text search over stored news and filing pages, point-in-time: nothing after `end`."""

    def __init__(self, repository: IMarketDataRepository):
        self._repository = repository

    def execute(
        self,
        query: str,
        *,
        symbol: str | None = None,
        start: date | None = None,
        end: date | None = None,
        limit: int = 10,
    ) -> list[TextHitDTO]:
        return self._repository.search_text(
            query,
            symbol=normalize_symbol(symbol) if symbol else None,
            start=start,
            end=_as_of(end),
            limit=limit,
        )


class GetFilingsUseCase:
    def __init__(self, repository: IMarketDataRepository):
        self._repository = repository

    def execute(
        self, symbol: str, as_of: date | None = None, forms: list[str] | None = None
    ) -> list[FilingDTO]:
        return self._repository.get_filings(normalize_symbol(symbol), _as_of(as_of), forms)


class GetFilingPagesUseCase:
    """A stored filing document as clean-text pages, point in time: only filings filed by `as_of`."""

    def __init__(self, repository: IMarketDataRepository):
        self._repository = repository

    def execute(self, symbol: str, accession_number: str, as_of: date | None = None) -> list[FilingPageDTO]:
        return self._repository.get_filing_pages(
            normalize_symbol(symbol), accession_number.strip(), _as_of(as_of)
        )


class GetStockDataSummaryUseCase:
    """Coverage and latest values of one symbol as of a date (`data show`)."""

    def __init__(self, repository: IMarketDataRepository):
        self._repository = repository

    def execute(self, symbol: str, as_of: date | None = None) -> StockDataSummaryDTO:
        day = _as_of(as_of)
        security = GetStockBasicInfoUseCase(self._repository).require(symbol)
        bars = self._repository.get_bars(security.symbol, day)
        valuations = self._repository.get_valuations(security.symbol, day)
        financials = GetFinanceForTickerUseCase(self._repository).execute(security.symbol, day)
        return StockDataSummaryDTO(
            security=security,
            as_of=day,
            bars=_range([b.trade_date for b in bars]),
            valuations=_range([v.trade_date for v in valuations]),
            derived_valuations=sum(v.is_derived for v in valuations),
            financial_periods=[
                f"{f.end_date.isoformat()} ({f.report_type}, ann {f.ann_date})" for f in financials
            ],
            financial_period_dates=[
                (f.end_date.isoformat(), str(f.report_type), str(f.ann_date)) for f in financials
            ],
            bars_5m=self._repository.intraday_span(security.symbol, day),
            latest_bar=bars[-1] if bars else None,
            latest_valuation=valuations[-1] if valuations else None,
            latest_financial=financials[0] if financials else None,
        )


def on_share_basis(
    reports: list[FinancialReportDTO], splits: pd.DataFrame, as_of: date
) -> list[FinancialReportDTO]:
    """One symbol's reports with their per-share figures and share counts on the share basis of
    `as_of` (`splits`: that symbol's stored splits)."""
    found = events(splits)
    if found.empty:
        return reports
    ann = [r.ann_date for r in reports]
    factors = per_share_factors(found, ann, [r.extra for r in reports], as_of)
    return [
        report.model_copy(
            update={
                column: rescaled(getattr(report, column), float(factor[i]), column)
                for column, factor in factors.items()
                if factor[i] != 1.0 and getattr(report, column) is not None
            }
        )
        for i, report in enumerate(reports)
    ]


def _range(days: list[date]) -> RangeSummary:
    return RangeSummary(count=len(days), first=min(days) if days else None, last=max(days) if days else None)
