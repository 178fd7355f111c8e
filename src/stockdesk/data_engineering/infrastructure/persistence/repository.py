"""SQLAlchemy implementation of the point-in-time market store (its 5-minute bars in intraday_bars.py,
its coverage reads in coverage.py)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import date
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import Boolean, Connection, Date, DateTime, Float, Table, and_, func, select
from sqlalchemy.exc import DataError, IntegrityError

from stockdesk.data_engineering.domain import frames as F
from stockdesk.data_engineering.domain.dtos import (
    BarChecksum,
    DailyBarDTO,
    DailyValuationDTO,
    FilingDTO,
    FilingPageDTO,
    FinancialReportDTO,
    NewsItemDTO,
    RangeSummary,
    SecurityDTO,
    TextHitDTO,
)
from stockdesk.data_engineering.domain.exceptions import ImportValidationError, RowProblem
from stockdesk.data_engineering.domain.ports import IMarketDataRepository
from stockdesk.data_engineering.infrastructure.persistence.coverage import SqlCoverageReads
from stockdesk.data_engineering.infrastructure.persistence.intraday_bars import SqlIntradayBars
from stockdesk.data_engineering.infrastructure.persistence.models import (
    DailyBarRow,
    DailyValuationRow,
    DividendRow,
    FilingPageRow,
    FilingRow,
    FinancialReportRow,
    IntradayBarRow,
    NewsItemRow,
    SecurityRow,
    SplitRow,
)
from stockdesk.data_engineering.infrastructure.persistence.text_index import (
    index_text,
    query_terms,
    search_index,
    snippet,
)
from stockdesk.shared.db import Database
from stockdesk.shared.db.upsert import upsert_columns

SPAN_CHUNK = 500  # symbols per grouped read of bar spans
_TABLES: dict[str, tuple[Table, list[str]]] = {
    "securities": (SecurityRow.__table__, ["symbol"]),  # type: ignore[dict-item]
    "bars": (DailyBarRow.__table__, F.BAR_KEY),  # type: ignore[dict-item]
    "valuations": (DailyValuationRow.__table__, F.VALUATION_KEY),  # type: ignore[dict-item]
    "financials": (FinancialReportRow.__table__, F.FINANCIAL_KEY),  # type: ignore[dict-item]
    "dividends": (DividendRow.__table__, F.DIVIDEND_KEY),  # type: ignore[dict-item]
    "splits": (SplitRow.__table__, F.SPLIT_KEY),  # type: ignore[dict-item]
    "news": (NewsItemRow.__table__, ["symbol", "url"]),  # type: ignore[dict-item]
    "filings": (FilingRow.__table__, ["symbol", "accession_number"]),  # type: ignore[dict-item]
    "filing_pages": (FilingPageRow.__table__, ["symbol", "accession_number", "page_no"]),  # type: ignore[dict-item]
    "bars_5m": (IntradayBarRow.__table__, F.INTRADAY_KEY),  # type: ignore[dict-item]
}
# columns the store derives or keeps for itself: not part of a table's canonical frame (nor its export)
_OWN_COLUMNS = {"id", "search_text", "imported_at"}
# the text columns each indexed table feeds to the full-text index
_INDEXED = {"news": ["title", "summary", "body"], "filing_pages": ["text"]}
_DATE_COLUMNS = {
    "trade_date", "end_date", "ann_date", "list_date", "filed_date", "report_date", "ex_date", "known_date",
}  # fmt: skip


def frame_to_columns(frame: pd.DataFrame, columns: list[str]) -> dict[str, list[Any]]:
    """Canonical frame -> DB values column by column: python dates, None for NaN/NaT, only the
    table's columns. Vectorised: dates are converted once per distinct day, numbers by numpy."""
    out: dict[str, list[Any]] = {}
    for column in (c for c in columns if c in frame.columns):
        series = frame[column]
        if column in _DATE_COLUMNS or column == "published_at":
            stamps = pd.to_datetime(series)
            if column == "published_at" and stamps.dt.tz is not None:
                stamps = stamps.dt.tz_convert("UTC").dt.tz_localize(None)  # stored as naive UTC
            codes, uniques = pd.factorize(stamps)
            python = uniques.date if column in _DATE_COLUMNS else uniques.to_pydatetime()
            lookup = np.append(python.astype(object), None)  # code -1 (NaT) picks the trailing None
            out[column] = lookup[codes].tolist()
            continue
        values = series.to_numpy(dtype=object, copy=True)
        values[series.isna().to_numpy()] = None
        out[column] = values.tolist()
    return out


def _clean(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


class SqlMarketDataRepository(SqlIntradayBars, SqlCoverageReads, IMarketDataRepository):
    def __init__(self, database: Database):
        self._db = database

    # ---- writes ----------------------------------------------------------------------------
    def _write(self, conn: Connection, kind: str, frame: pd.DataFrame) -> int:
        if kind == "bars_5m":  # compared with the stored bars: only new or changed ones count as written
            counts = self.write_intraday_in(conn, frame)
            return counts.new + counts.changed
        table, key = _TABLES[kind]
        if kind in _INDEXED:
            frame = frame.assign(search_text=index_text(frame, _INDEXED[kind]))
        values = frame_to_columns(frame, [c.name for c in table.columns if c.name != "id"])
        return upsert_columns(conn, table, values, key)

    def write_batch(self, frames: dict[str, pd.DataFrame]) -> dict[str, int]:
        """One transaction; rows the store's constraints refuse roll all of it back, as a clear error."""
        self._db.ensure_schema()
        try:
            with self._db.engine.begin() as conn:
                return {kind: self._write(conn, kind, frame) for kind, frame in frames.items() if len(frame)}
        except (IntegrityError, DataError, OverflowError) as exc:
            detail = exc.orig if isinstance(exc, (IntegrityError, DataError)) else exc
            reason = f"the store refused the rows ({' '.join(str(detail).split())})"
            raise ImportValidationError("store", [RowProblem(row=None, reason=reason)]) from exc

    def upsert_securities(self, frame: pd.DataFrame) -> int:
        return self.write_batch({"securities": frame}).get("securities", 0)

    def upsert_bars(self, frame: pd.DataFrame) -> int:
        return self.write_batch({"bars": frame}).get("bars", 0)

    def upsert_valuations(self, frame: pd.DataFrame) -> int:
        return self.write_batch({"valuations": frame}).get("valuations", 0)

    def upsert_financials(self, frame: pd.DataFrame) -> int:
        return self.write_batch({"financials": frame}).get("financials", 0)

    def upsert_news(self, frame: pd.DataFrame) -> int:
        return self.write_batch({"news": frame}).get("news", 0)

    def upsert_filings(self, frame: pd.DataFrame) -> int:
        return self.write_batch({"filings": frame}).get("filings", 0)

    def upsert_filing_pages(self, frame: pd.DataFrame) -> int:
        return self.write_batch({"filing_pages": frame}).get("filing_pages", 0)

    # ---- reads -----------------------------------------------------------------------------
    def get_security(self, symbol: str) -> SecurityDTO | None:
        with self._db.session() as session:
            row = session.get(SecurityRow, symbol)
            return _security(row) if row else None

    def list_securities(self) -> list[SecurityDTO]:
        with self._db.session() as session:
            return [_security(r) for r in session.scalars(select(SecurityRow).order_by(SecurityRow.symbol))]

    @staticmethod
    def _window(column: Any, as_of: date, start: date | None, end: date | None) -> list[Any]:
        last = min(as_of, end) if end else as_of
        clauses = [column <= last]
        if start:
            clauses.append(column >= start)
        return clauses

    def get_bars(
        self, symbol: str, as_of: date, start: date | None = None, end: date | None = None
    ) -> list[DailyBarDTO]:
        stmt = (
            select(DailyBarRow)
            .where(DailyBarRow.symbol == symbol, *self._window(DailyBarRow.trade_date, as_of, start, end))
            .order_by(DailyBarRow.trade_date)
        )
        return [DailyBarDTO.model_validate(r) for r in self._column_rows(stmt, DailyBarRow, F.BAR_COLUMNS)]

    def get_valuations(
        self, symbol: str, as_of: date, start: date | None = None, end: date | None = None
    ) -> list[DailyValuationDTO]:
        stmt = (
            select(DailyValuationRow)
            .where(
                DailyValuationRow.symbol == symbol,
                *self._window(DailyValuationRow.trade_date, as_of, start, end),
            )
            .order_by(DailyValuationRow.trade_date)
        )
        rows = self._column_rows(stmt, DailyValuationRow, F.VALUATION_COLUMNS)
        return [DailyValuationDTO.model_validate(r) for r in rows]

    def _column_rows(self, stmt: Any, model: Any, columns: list[str]) -> list[dict[str, Any]]:
        """Plain column values (no ORM objects): the long daily series are read several times a run."""
        wanted = [getattr(model, c) for c in columns if hasattr(model, c)]
        with self._db.session() as session:
            result = session.execute(stmt.with_only_columns(*wanted))
            keys = list(result.keys())
            rows = result.all()
        # v != v only for NaN (PostgreSQL keeps float NaN; it means "no value" here)
        return [{k: (None if v != v else v) for k, v in zip(keys, row, strict=True)} for row in rows]

    def get_financials(self, symbol: str, as_of: date, limit: int | None = None) -> list[FinancialReportDTO]:
        latest = (
            select(
                FinancialReportRow.end_date.label("end_date"),
                func.max(FinancialReportRow.ann_date).label("ann_date"),
            )
            .where(FinancialReportRow.symbol == symbol, FinancialReportRow.ann_date <= as_of)
            .group_by(FinancialReportRow.end_date)
            .subquery()
        )
        stmt = (
            select(FinancialReportRow)
            .join(
                latest,
                and_(
                    FinancialReportRow.end_date == latest.c.end_date,
                    FinancialReportRow.ann_date == latest.c.ann_date,
                ),
            )
            .where(FinancialReportRow.symbol == symbol)
            .order_by(FinancialReportRow.end_date.desc())
        )
        if limit:
            stmt = stmt.limit(limit)
        with self._db.session() as session:
            return [_financial(r) for r in session.scalars(stmt)]

    def get_news(self, symbol: str, as_of: date, limit: int = 50) -> list[NewsItemDTO]:
        end = pd.Timestamp(as_of) + pd.Timedelta(days=1)
        stmt = (
            select(NewsItemRow)
            .where(NewsItemRow.symbol == symbol, NewsItemRow.published_at < end.to_pydatetime())
            .order_by(NewsItemRow.published_at.desc())
            .limit(limit)
        )
        with self._db.session() as session:
            return [NewsItemDTO.model_validate(_as_dict(r, F.NEWS_COLUMNS)) for r in session.scalars(stmt)]

    def get_filings(self, symbol: str, as_of: date, forms: list[str] | None = None) -> list[FilingDTO]:
        stmt = select(FilingRow).where(FilingRow.symbol == symbol, FilingRow.filed_date <= as_of)
        if forms:
            stmt = stmt.where(FilingRow.form.in_(forms))
        with self._db.session() as session:
            rows = session.scalars(stmt.order_by(FilingRow.filed_date.desc()))
            return [FilingDTO.model_validate(_as_dict(r, F.FILING_COLUMNS)) for r in rows]

    def get_filing_pages(self, symbol: str, accession_number: str, as_of: date) -> list[FilingPageDTO]:
        stmt = (
            select(FilingPageRow)
            .join(
                FilingRow,
                and_(
                    FilingRow.symbol == FilingPageRow.symbol,
                    FilingRow.accession_number == FilingPageRow.accession_number,
                ),
            )
            .where(
                FilingPageRow.symbol == symbol,
                FilingPageRow.accession_number == accession_number,
                FilingRow.filed_date <= as_of,
            )
            .order_by(FilingPageRow.page_no)
        )
        with self._db.session() as session:
            rows = session.scalars(stmt)
            return [FilingPageDTO.model_validate(_as_dict(r, F.FILING_PAGE_COLUMNS)) for r in rows]

    def search_text(
        self, query: str, *, symbol: str | None, start: date | None, end: date, limit: int
    ) -> list[TextHitDTO]:
        terms = query_terms(query)
        if not terms:
            return []
        self._db.ensure_schema()
        with self._db.engine.connect() as conn:
            rows = [
                (kind, row)
                for kind in ("news", "filings")
                for row in search_index(conn, kind, terms, symbol=symbol, start=start, end=end, limit=limit)
            ]
        rows.sort(key=lambda pair: pair[1]["rank"])
        return [_hit(kind, row, terms) for kind, row in rows[:limit]]

    def bars_frame(self, symbols: list[str] | None, as_of: date, start: date | None = None) -> pd.DataFrame:
        table = DailyBarRow.__table__
        stmt = select(table).where(*self._window(table.c.trade_date, as_of, start, None))
        if symbols:
            stmt = stmt.where(table.c.symbol.in_(symbols))
        return self._dated_frame(stmt.order_by(table.c.symbol, table.c.trade_date))

    def valuations_frame(self, symbols: list[str], as_of: date, start: date | None = None) -> pd.DataFrame:
        table = DailyValuationRow.__table__
        stmt = select(table).where(
            table.c.symbol.in_(symbols), *self._window(table.c.trade_date, as_of, start, None)
        )
        return self._dated_frame(stmt.order_by(table.c.symbol, table.c.trade_date))

    def first_text_date(self) -> date | None:
        with self._db.session() as session:
            news = session.scalar(select(func.min(NewsItemRow.published_at)))
            filed = session.scalar(select(func.min(FilingRow.filed_date)))
        days = [pd.Timestamp(v).date() for v in (news, filed) if v is not None]
        return min(days) if days else None

    def financials_frame(self, symbols: list[str]) -> pd.DataFrame:
        """Every stored version of every report of `symbols` (canonical columns)."""
        table = FinancialReportRow.__table__
        return self._frame(select(table).where(table.c.symbol.in_(symbols)))

    def bar_spans(self, symbols: list[str]) -> dict[str, RangeSummary]:
        table = DailyBarRow.__table__
        day = table.c.trade_date
        spans: dict[str, RangeSummary] = {}
        self._db.ensure_schema()
        with self._db.engine.connect() as conn:
            for start in range(0, len(symbols), SPAN_CHUNK):  # bounded IN lists (SQLite's variables)
                chunk = symbols[start : start + SPAN_CHUNK]
                stmt = (
                    select(table.c.symbol, func.count(), func.min(day), func.max(day))
                    .where(table.c.symbol.in_(chunk))
                    .group_by(table.c.symbol)
                )
                for symbol, count, first, last in conn.execute(stmt):
                    spans[symbol] = RangeSummary(
                        count=int(count), first=pd.Timestamp(first).date(), last=pd.Timestamp(last).date()
                    )
        return spans

    def bar_checksums(self, symbols: list[str], start: date, end: date | None) -> dict[str, BarChecksum]:
        table = DailyBarRow.__table__
        c, day = table.c, table.c.trade_date
        summed = [func.sum(col) for col in (c.open, c.close, c.pre_close, c.volume, c.adj_factor)]
        found: dict[str, BarChecksum] = {}
        self._db.ensure_schema()
        with self._db.engine.connect() as conn:
            for first in range(0, len(symbols), SPAN_CHUNK):  # bounded IN lists (SQLite's variables)
                where = [c.symbol.in_(symbols[first : first + SPAN_CHUNK]), day >= start]
                if end is not None:
                    where.append(day <= end)
                stmt = select(c.symbol, func.count(), func.max(day), *summed).where(*where).group_by(c.symbol)
                for symbol, count, last, *sums in conn.execute(stmt):
                    found[symbol] = BarChecksum(
                        count=int(count),
                        last=pd.Timestamp(last).date(),
                        sums=[None if v is None else float(v) for v in sums],
                    )
        return found

    def market_bar_days(self, market: str, after: date) -> list[date]:
        bars, securities = DailyBarRow.__table__, SecurityRow.__table__
        stmt = (
            select(bars.c.trade_date)
            .distinct()
            .join(securities, securities.c.symbol == bars.c.symbol)
            .where(securities.c.market == market, bars.c.trade_date > after)
            .order_by(bars.c.trade_date)
        )
        self._db.ensure_schema()
        with self._db.engine.connect() as conn:
            return [pd.Timestamp(day).date() for (day,) in conn.execute(stmt)]

    def dividends_frame(self, symbols: list[str]) -> pd.DataFrame:
        table = DividendRow.__table__
        return self._frame(select(table).where(table.c.symbol.in_(symbols)))

    def splits_frame(self, symbols: list[str]) -> pd.DataFrame:
        table = SplitRow.__table__
        return self._frame(select(table).where(table.c.symbol.in_(symbols)))

    def symbols_with_reported_valuations(self, symbols: list[str]) -> set[str]:
        table = DailyValuationRow.__table__
        stmt = (
            select(table.c.symbol)
            .where(table.c.symbol.in_(symbols), table.c.is_derived.is_(False))
            .distinct()
        )
        with self._db.session() as session:
            return set(session.scalars(stmt))

    def _dated_frame(self, stmt: Any) -> pd.DataFrame:
        """The rows of a daily table with its dates as datetime64, read as the driver returns them.

        Why not `pd.read_sql`: SQLAlchemy converts every value of every row on fetch (a date string
        to a `date` object, one call each), which for a 300-symbol history is half the read. Here the
        driver's rows become columns at once and each column is converted by its declared type.
        """
        self._db.ensure_schema()
        with self._db.engine.connect() as conn:
            result = conn.execute(stmt)
            names = list(result.keys())
            rows = result.cursor.fetchall() if result.cursor is not None else []
            result.close()
        frame = pd.DataFrame.from_records(rows, columns=names, coerce_float=True)
        for column in stmt.selected_columns:
            name = column.name
            if isinstance(column.type, Date):
                frame[name] = pd.to_datetime(frame[name], format="ISO8601").astype("datetime64[s]")
            elif isinstance(column.type, Float):
                frame[name] = pd.to_numeric(frame[name], errors="coerce").astype("float64")
            elif isinstance(column.type, Boolean) and not frame[name].isna().any():
                frame[name] = frame[name].astype(bool)
        return frame

    def _frame(self, stmt: Any) -> pd.DataFrame:
        self._db.ensure_schema()
        with self._db.engine.connect() as conn:
            return pd.read_sql(stmt, conn)

    def counts(self) -> dict[str, int]:
        with self._db.session() as session:
            return {
                kind: session.scalar(select(func.count()).select_from(table)) or 0
                for kind, (table, _key) in _TABLES.items()
            }

    def table_frames(self, kind: str, chunk_rows: int = 100_000) -> Iterator[pd.DataFrame]:
        """Stream one table in key order; one read transaction, so the chunks are one snapshot."""
        table, key = _TABLES[kind]
        columns = [c for c in table.columns if c.name not in _OWN_COLUMNS]
        stmt = select(*columns).order_by(*(table.c[k] for k in key))
        self._db.ensure_schema()
        with self._db.engine.connect() as conn:
            chunks = pd.read_sql(stmt, conn, chunksize=chunk_rows)
            empty = True
            for chunk in chunks:
                empty = False
                yield _typed(chunk, columns)
            if empty:
                yield _typed(pd.DataFrame({c.name: [] for c in columns}), columns)


def _typed(frame: pd.DataFrame, columns: list[Any]) -> pd.DataFrame:
    """Stable dtypes whatever a chunk holds (an all-NULL float column would otherwise be object)."""
    out = frame.copy()
    for column in columns:
        name = column.name
        if isinstance(column.type, DateTime) and column.type.timezone:  # SQLite answers naive UTC
            out[name] = pd.to_datetime(out[name], utc=True).astype("datetime64[us, UTC]")
        elif isinstance(column.type, (Date, DateTime)):
            out[name] = pd.to_datetime(out[name]).astype("datetime64[us]")
        elif isinstance(column.type, Float):
            out[name] = pd.to_numeric(out[name]).astype("float64")
        elif isinstance(column.type, Boolean):
            out[name] = out[name].astype(bool) if out[name].notna().all() else out[name].astype("boolean")
    return out


def _as_dict(row: Any, columns: list[str]) -> dict[str, Any]:
    return {c: _clean(getattr(row, c)) for c in columns if hasattr(row, c)}


def _security(row: SecurityRow) -> SecurityDTO:
    data = _as_dict(row, F.SECURITY_COLUMNS)
    data["provider_codes"] = data.get("provider_codes") or {}
    return SecurityDTO.model_validate(data)


def _financial(row: FinancialReportRow) -> FinancialReportDTO:
    data = _as_dict(row, F.FINANCIAL_COLUMNS)
    data["extra"] = data.get("extra") or {}
    return FinancialReportDTO.model_validate(data)


def _hit(kind: str, row: dict[str, Any], terms: list[str]) -> TextHitDTO:
    published = pd.Timestamp(row["published_at"]).to_pydatetime()
    if kind == "news":
        return TextHitDTO(
            kind="news",
            symbol=row["symbol"],
            title=row["title"] or "",
            url=row["url"],
            published_at=published,
            summary=row["summary"] or "",
            snippet=snippet(row["body"] or row["summary"], terms),
            source=row["source"] or "",
        )
    period = f" for {row['report_date']}" if row["report_date"] else ""
    return TextHitDTO(
        kind="filing",
        symbol=row["symbol"],
        title=f"{row['symbol']} {row['form']}{period}, filed {row['published_at']} (page {row['page_no']})",
        url=row["url"] or "",
        published_at=published,
        snippet=snippet(row["body"], terms),
        source="SEC EDGAR",
    )
