"""REST routes of the market store: one security with its coverage, and paged series (daily bars,
valuations, financial reports, 5-minute bars).

Everything is answered as of a date (default today) so that a client replaying the past sees only
what was known then. Errors are the app's common envelope: unknown symbol 404 STOCK_NOT_FOUND, bad
symbol 400 INVALID_SYMBOL, bad date or paging 400.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Annotated, Generic, TypeVar

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel

from stockdesk.data_engineering.container import DataEngineeringContainer
from stockdesk.data_engineering.domain.dtos import (
    DailyBarDTO,
    DailyValuationDTO,
    FinancialReportDTO,
    IntradayBarDTO,
    StockDataSummaryDTO,
)
from stockdesk.shared.dates import IsoDay
from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.symbol_text import SYMBOL_PATTERN

DEFAULT_LIMIT = 500
MAX_LIMIT = 5000
Item = TypeVar("Item", bound=BaseModel)

SymbolPath = Annotated[str, Path(pattern=SYMBOL_PATTERN, description="e.g. 600519.SH or AAPL")]
AsOf = Annotated[IsoDay | None, Query(description="Point in time (YYYY-MM-DD); default today.")]
Start = Annotated[IsoDay | None, Query(description="First date (inclusive).")]
End = Annotated[IsoDay | None, Query(description="Last date (inclusive); never later than as_of.")]
Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT)]
Offset = Annotated[int, Query(ge=0, le=1_000_000_000)]


class StockResponse(StockDataSummaryDTO):
    symbol: str


class Page(BaseModel, Generic[Item]):
    symbol: str
    as_of: date
    total: int
    limit: int
    offset: int
    items: list[Item]


def _page(symbol: str, as_of: date, rows: Sequence[Item], limit: int, offset: int) -> Page[Item]:
    return Page[Item](
        symbol=symbol,
        as_of=as_of,
        total=len(rows),
        limit=limit,
        offset=offset,
        items=list(rows[offset : offset + limit]),
    )


def _check_range(start: date | None, end: date | None) -> None:
    if start and end and start > end:
        raise BadRequestException(f"start {start} is after end {end}", code="INVALID_DATE_RANGE")


@dataclass(frozen=True)
class SeriesQuery:
    """The query every paged series route takes, validated once."""

    symbol: str
    as_of: date
    start: date | None
    end: date | None
    limit: int
    offset: int

    def page(self, rows: Sequence[Item]) -> Page[Item]:
        return _page(self.symbol, self.as_of, rows, self.limit, self.offset)


def build_data_router(get_container: Callable[[], DataEngineeringContainer]) -> APIRouter:
    router = APIRouter(prefix="/stocks", tags=["market data"])

    def series_query(
        symbol: SymbolPath,
        as_of: AsOf = None,
        start: Start = None,
        end: End = None,
        limit: Limit = DEFAULT_LIMIT,
        offset: Offset = 0,
    ) -> SeriesQuery:
        """Date range checked, then the canonical symbol of a stored security (400 malformed, 404 unknown)."""
        _check_range(start, end)
        canonical = get_container().stock_basic_info.require(symbol).symbol
        return SeriesQuery(canonical, as_of or date.today(), start, end, limit, offset)

    @router.get("/{symbol}", response_model=StockResponse)
    def stock(symbol: SymbolPath, as_of: AsOf = None) -> StockResponse:
        """The security with its coverage and latest values as of `as_of`."""
        summary = get_container().summary.execute(symbol, as_of or date.today())
        return StockResponse(symbol=summary.security.symbol, **dict(summary))

    @router.get("/{symbol}/bars", response_model=Page[DailyBarDTO])
    def bars(q: SeriesQuery = Depends(series_query)) -> Page[DailyBarDTO]:
        """Daily bars, oldest first."""
        return q.page(get_container().daily_bars.execute(q.symbol, q.as_of, q.start, q.end))

    @router.get("/{symbol}/bars_5m", response_model=Page[IntradayBarDTO])
    def bars_5m(q: SeriesQuery = Depends(series_query)) -> Page[IntradayBarDTO]:
        """Stored 5-minute bars, oldest first, stamped with their start (`ts` in exchange time,
        `ts_utc`). `start`/`end` and `as_of` are exchange dates: no bar of a day after `as_of`."""
        return q.page(get_container().intraday_bars.execute(q.symbol, q.as_of, q.start, q.end))

    @router.get("/{symbol}/valuations", response_model=Page[DailyValuationDTO])
    def valuations(q: SeriesQuery = Depends(series_query)) -> Page[DailyValuationDTO]:
        """Daily valuations (reported or derived, see `is_derived`), oldest first."""
        return q.page(get_container().valuations.execute(q.symbol, q.as_of, q.start, q.end))

    @router.get("/{symbol}/financials", response_model=Page[FinancialReportDTO])
    def financials(q: SeriesQuery = Depends(series_query)) -> Page[FinancialReportDTO]:
        """Latest version announced by `as_of` of each report period, newest period first, with
        per-share figures and share counts on the share basis of `as_of` (split-adjusted).

        `start`/`end` select periods by their end date.
        """
        reports = get_container().finance.execute(q.symbol, q.as_of)
        in_range = [
            r
            for r in reports
            if (not q.start or r.end_date >= q.start) and (not q.end or r.end_date <= q.end)
        ]
        return q.page(in_range)

    return router
