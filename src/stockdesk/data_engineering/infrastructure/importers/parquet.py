"""Parquet files written by `stockdesk data export` -> canonical frames, one ImportGroup per file.

The layout is ours (see `exporters/parquet.py`): `<table>.parquet` with the canonical columns. A file
that is unreadable or has other columns is refused before anything is written; row-level checks are
the import service's, so each file is validated and written all-or-nothing on its own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from stockdesk.data_engineering.application.validation import ROW
from stockdesk.data_engineering.domain.exceptions import ImportValidationError, RowProblem
from stockdesk.data_engineering.infrastructure.exporters.parquet import JSON_COLUMNS, TABLES, file_name
from stockdesk.data_engineering.infrastructure.importers import ImportGroup


def _refuse(source: str, reason: str) -> ImportValidationError:
    return ImportValidationError(source, [RowProblem(row=None, reason=reason)])


def _json_value(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else None


def read_parquet_table(path: Path, kind: str) -> pd.DataFrame:
    """One exported table as a canonical frame with a 1-based `_row` column."""
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:
        raise _refuse(path.name, f"not a readable Parquet file ({exc})") from exc
    expected = TABLES[kind]
    missing = [c for c in expected if c not in table.column_names]
    unknown = [c for c in table.column_names if c not in expected]
    if missing or unknown:
        parts = [f"missing column(s) {', '.join(missing)}"] if missing else []
        parts += [f"unknown column(s) {', '.join(unknown)}"] if unknown else []
        raise _refuse(path.name, f"{kind}: {'; '.join(parts)}")
    frame = table.select(expected).to_pandas(date_as_object=False)
    for column in JSON_COLUMNS.intersection(frame.columns):
        try:
            frame[column] = frame[column].map(_json_value).astype(object)
        except json.JSONDecodeError as exc:
            raise _refuse(path.name, f"{column}: not JSON ({exc})") from exc
    frame[ROW] = np.arange(1, len(frame) + 1)
    return frame


def read_parquet_folder(folder: Path) -> list[ImportGroup]:
    """One group per `<table>.parquet` present, securities first; other files are ignored."""
    if not folder.is_dir():
        raise _refuse(str(folder), "not a directory")
    paths = {kind: folder / file_name(kind) for kind in TABLES if (folder / file_name(kind)).is_file()}
    if not paths:
        names = ", ".join(file_name(k) for k in TABLES)
        raise _refuse(str(folder), f"no stockdesk Parquet files ({names})")
    return [
        ImportGroup(source=path.name, frames={kind: read_parquet_table(path, kind)})
        for kind, path in paths.items()
    ]
