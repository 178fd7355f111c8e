"""Validation of canonical frames before anything is written.

Problems are collected per row (the `_row` column carries the 1-based data row of the source file)
so that a rejected file comes back with every reason at once. Duplicate keys collapse when their
non-null values agree (Tushare returns each fina_indicator report twice, once with a few blanks)
and are a problem when two non-null values differ.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from stockdesk.data_engineering.domain import frames as F
from stockdesk.data_engineering.domain.exceptions import RowProblem

ROW = "_row"


def _rows(frame: pd.DataFrame, mask: pd.Series) -> list[int | None]:
    if ROW not in frame.columns:
        return [None] * int(mask.sum())
    return [int(r) for r in frame.loc[mask, ROW]]


def require_columns(frame: pd.DataFrame, required: list[str], what: str) -> list[RowProblem]:
    missing = [c for c in required if c not in frame.columns]
    if missing:
        return [RowProblem(row=None, reason=f"{what}: missing column(s) {', '.join(missing)}")]
    return []


def parse_dates(frame: pd.DataFrame, columns: list[str], problems: list[RowProblem]) -> pd.DataFrame:
    """Parse date columns (YYYYMMDD, ISO or m/d/Y); unparsable values become row problems."""
    out = frame.copy()
    for column in columns:
        if column not in out.columns:
            continue
        raw = out[column]
        text = raw.astype("string").str.strip().str.replace(r"\.0$", "", regex=True)
        parsed = pd.to_datetime(text, format="%Y%m%d", errors="coerce")
        for fmt in ("ISO8601", "%m/%d/%Y"):
            todo = parsed.isna() & text.notna()
            if todo.any():
                parsed[todo] = pd.to_datetime(text[todo], format=fmt, errors="coerce")
        bad = parsed.isna() & raw.notna()
        for row, value in zip(_rows(out, bad), raw[bad], strict=True):
            problems.append(RowProblem(row=row, reason=f"{column}: unparsable date {value!r}"))
        out[column] = parsed.dt.normalize()
    return out


def numeric(frame: pd.DataFrame, columns: list[str], problems: list[RowProblem]) -> pd.DataFrame:
    out = frame.copy()
    for column in columns:
        if column not in out.columns:
            out[column] = np.nan
            continue
        raw = out[column]
        values = pd.to_numeric(raw, errors="coerce")
        bad = values.isna() & raw.notna()
        if bad.any():  # only look at the text of the few suspicious values (blank strings are missing)
            bad &= raw.astype("string").str.strip() != ""
        for row, value in zip(_rows(out, bad), raw[bad], strict=True):
            problems.append(RowProblem(row=row, reason=f"{column}: not a number {value!r}"))
        out[column] = values.astype("float64")
    return out


def collapse_duplicates(
    frame: pd.DataFrame,
    key: list[str],
    problems: list[RowProblem],
    what: str,
    *,
    not_compared: tuple[str, ...] = (),
) -> pd.DataFrame:
    """Merge rows sharing a key when their non-null values agree; report conflicts.

    Columns in `not_compared` (free-form payloads) are taken from the first row that has them.
    """
    if frame.empty:
        return frame
    dup_mask = frame.duplicated(key, keep=False)
    if not dup_mask.any():
        return frame
    value_cols = [c for c in frame.columns if c not in key and c != ROW and c not in not_compared]
    dups = frame[dup_mask]
    grouped = dups.groupby(key, sort=False, dropna=False)
    distinct = grouped[value_cols].nunique(dropna=True)
    conflicting = distinct.gt(1)
    for index, row in conflicting[conflicting.any(axis=1)].iterrows():
        columns = [c for c in value_cols if row[c]]
        key_values = index if isinstance(index, tuple) else (index,)
        key_text = ", ".join(f"{k}={_fmt(v)}" for k, v in zip(key, key_values, strict=True))
        in_group = (dups[key] == pd.Series(key_values, index=key)).all(axis=1)
        first_row = int(dups.loc[in_group, ROW].min()) if ROW in dups.columns else None
        problems.append(
            RowProblem(
                row=first_row,
                reason=f"{what}: duplicate key ({key_text}) with different values in {', '.join(columns)}",
            )
        )
    merged = grouped.first().reset_index()  # first non-null per column
    if ROW in frame.columns:
        merged[ROW] = grouped[ROW].min().to_numpy()
    return pd.concat([frame[~dup_mask], merged[frame.columns]], ignore_index=True)


def _fmt(value: object) -> str:
    if isinstance(value, pd.Timestamp):
        return value.strftime("%Y-%m-%d")
    return str(value)


def validate_bars(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[RowProblem]]:
    problems = require_columns(frame, ["symbol", "trade_date", "close"], "bars")
    if problems:
        return frame, problems
    out = parse_dates(frame, ["trade_date"], problems)
    out = numeric(out, [c for c in F.BAR_COLUMNS if c not in F.BAR_KEY], problems)
    prices = out[F.BAR_PRICE_COLUMNS]
    bad_price = (prices <= 0).any(axis=1) | out["close"].isna()
    for row, values in zip(_rows(out, bad_price), prices[bad_price].itertuples(index=False), strict=True):
        problems.append(RowProblem(row=row, reason=f"bars: price must be positive, got {tuple(values)}"))
    bad_range = (out["high"] < out["low"]).fillna(False)
    for row in _rows(out, bad_range):
        problems.append(RowProblem(row=row, reason="bars: high is below low"))
    negative = (out[["volume", "amount"]] < 0).any(axis=1)
    for row in _rows(out, negative):
        problems.append(RowProblem(row=row, reason="bars: negative volume or amount"))
    out = collapse_duplicates(out, F.BAR_KEY, problems, "bars")
    return out, problems


def validate_valuations(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[RowProblem]]:
    problems = require_columns(frame, ["symbol", "trade_date"], "valuations")
    if problems:
        return frame, problems
    out = parse_dates(frame, ["trade_date"], problems)
    numeric_cols = [c for c in F.VALUATION_COLUMNS if c not in (*F.VALUATION_KEY, "is_derived")]
    out = numeric(out, numeric_cols, problems)
    negative = (out[["close", "total_mv", "circ_mv"]] < 0).any(axis=1)
    for row in _rows(out, negative):
        problems.append(RowProblem(row=row, reason="valuations: negative price or market value"))
    out["is_derived"] = out["is_derived"].fillna(False).astype(bool) if "is_derived" in out else False
    out = collapse_duplicates(out, F.VALUATION_KEY, problems, "valuations")
    return out, problems


def validate_financials(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[RowProblem]]:
    problems = require_columns(frame, ["symbol", "end_date", "ann_date"], "financials")
    if problems:
        return frame, problems
    out = parse_dates(frame, ["end_date", "ann_date"], problems)
    out = numeric(out, F.FINANCIAL_NUMERIC, problems)
    early = (out["ann_date"] < out["end_date"]).fillna(False)
    for row in _rows(out, early):
        problems.append(RowProblem(row=row, reason="financials: announced before the period ended"))
    if "report_type" not in out.columns or out["report_type"].isna().any():
        out["report_type"] = out["end_date"].dt.month.map(F.report_type_of)
    if "extra" not in out.columns:
        out["extra"] = None
    out = collapse_duplicates(out, F.FINANCIAL_KEY, problems, "financials", not_compared=("extra",))
    return out, problems


def validate_securities(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[RowProblem]]:
    problems = require_columns(frame, ["symbol", "market"], "securities")
    if problems:
        return frame, problems
    out = parse_dates(frame, ["list_date"], problems)
    blank = out["symbol"].isna() | (out["symbol"].astype("string").str.strip() == "")
    for row in _rows(out, blank):
        problems.append(RowProblem(row=row, reason="securities: blank symbol"))
    out = out.drop_duplicates("symbol", keep="last")
    return out, problems


def validate_dividends(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[RowProblem]]:
    problems = require_columns(frame, F.DIVIDEND_COLUMNS, "dividends")
    if problems:
        return frame, problems
    out = parse_dates(frame, ["ex_date"], problems)
    out = numeric(out, ["cash_per_share"], problems)
    bad = ~(out["cash_per_share"] > 0)
    for row in _rows(out, bad):
        problems.append(RowProblem(row=row, reason="dividends: cash per share must be positive"))
    out = collapse_duplicates(out, F.DIVIDEND_KEY, problems, "dividends")
    return out, problems


VALIDATORS = {
    "securities": validate_securities,
    "bars": validate_bars,
    "valuations": validate_valuations,
    "financials": validate_financials,
    "dividends": validate_dividends,
}
