"""The store as one Parquet file per table, read back by `importers/parquet.py`.

Columns are the canonical ones of `domain/frames.py` with a fixed Arrow schema (dates as date32,
`published_at` as a naive microsecond timestamp (UTC by convention), a 5-minute bar's start `ts_utc`
as a microsecond timestamp with time zone UTC, JSON columns as JSON text), so that a file does not
depend on what pandas inferred from one chunk and an export -> import -> export round trip is exact.
Each table is streamed in chunks (one row group each) and renamed into place only when complete.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from stockdesk.data_engineering.domain import frames as F
from stockdesk.data_engineering.domain.ports import IMarketDataRepository

TABLES: dict[str, list[str]] = {
    "securities": F.SECURITY_COLUMNS,
    "bars": F.BAR_COLUMNS,
    "valuations": F.VALUATION_COLUMNS,
    "financials": F.FINANCIAL_COLUMNS,
    "dividends": F.DIVIDEND_COLUMNS,
    "splits": F.SPLIT_COLUMNS,
    "news": F.NEWS_COLUMNS,
    "filings": F.FILING_COLUMNS,
    "filing_pages": F.FILING_PAGE_COLUMNS,
    "bars_5m": F.INTRADAY_COLUMNS,
}
DATE_COLUMNS = {
    "trade_date", "end_date", "ann_date", "list_date", "filed_date", "report_date", "ex_date", "known_date",
}  # fmt: skip
TIMESTAMP_COLUMNS = {"published_at"}
UTC_TIMESTAMP_COLUMNS = {"ts_utc"}
JSON_COLUMNS = {"extra", "provider_codes"}
BOOL_COLUMNS = {"is_derived"}
INT_COLUMNS = {"page_no"}
TEXT_COLUMNS = {
    "symbol", "name", "industry", "market", "exchange", "currency", "report_type",
    "title", "summary", "body", "url", "source", "accession_number", "form", "document_text", "text",
}  # fmt: skip


def file_name(kind: str) -> str:
    return f"{kind}.parquet"


def arrow_type(column: str) -> pa.DataType:
    if column in DATE_COLUMNS:
        return pa.date32()
    if column in TIMESTAMP_COLUMNS:
        return pa.timestamp("us")
    if column in UTC_TIMESTAMP_COLUMNS:
        return pa.timestamp("us", tz="UTC")
    if column in BOOL_COLUMNS:
        return pa.bool_()
    if column in INT_COLUMNS:
        return pa.int64()
    if column in JSON_COLUMNS or column in TEXT_COLUMNS:
        return pa.string()
    return pa.float64()


def arrow_schema(kind: str) -> pa.Schema:
    return pa.schema([pa.field(c, arrow_type(c)) for c in TABLES[kind]])


def _json_text(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return None
    return json.dumps(value, ensure_ascii=False)


def to_arrow(frame: pd.DataFrame, kind: str) -> pa.Table:
    """One chunk of a table -> Arrow with the table's fixed schema; unknown columns are an error."""
    unknown = [c for c in frame.columns if c not in TABLES[kind]]
    if unknown:
        raise ValueError(f"{kind}: column(s) {', '.join(unknown)} have no Parquet type; update TABLES")
    out = frame.reindex(columns=TABLES[kind])
    for column in JSON_COLUMNS.intersection(out.columns):
        out[column] = out[column].map(_json_text).astype(object)
    for column in DATE_COLUMNS.intersection(out.columns):
        out[column] = pd.to_datetime(out[column])  # Arrow refuses a cast to date32 that drops a time
    for column in UTC_TIMESTAMP_COLUMNS.intersection(out.columns):
        out[column] = pd.to_datetime(out[column], utc=True)
    return pa.Table.from_pandas(out, schema=arrow_schema(kind), preserve_index=False)


def export_table(
    repository: IMarketDataRepository, kind: str, folder: Path, chunk_rows: int = 100_000
) -> int:
    """Write `<folder>/<kind>.parquet` (replacing it only once complete); returns rows written."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / file_name(kind)
    partial = target.with_name(target.name + ".partial")
    rows = 0
    try:
        with pq.ParquetWriter(partial, arrow_schema(kind)) as writer:
            for chunk in repository.table_frames(kind, chunk_rows):
                if len(chunk):
                    writer.write_table(to_arrow(chunk, kind))
                    rows += len(chunk)
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return rows
