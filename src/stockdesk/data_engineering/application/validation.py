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
# Dates outside these years are typos or junk (year 0001, 9999): they would break date arithmetic later.
FIRST_DATE, END_DATE = pd.Timestamp("1800-01-01"), pd.Timestamp("2200-01-01")


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
        outside = (parsed < FIRST_DATE) | (parsed >= END_DATE)
        for row, value in zip(_rows(out, outside), raw[outside], strict=True):
            reason = f"{column}: date {value!r} is outside {FIRST_DATE.year}-{END_DATE.year - 1}"
            problems.append(RowProblem(row=row, reason=reason))
        out[column] = parsed.where(~outside).dt.normalize()
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
        values = values.astype("float64")
        for row, value in zip(_rows(out, np.isinf(values)), values[np.isinf(values)], strict=True):
            problems.append(RowProblem(row=row, reason=f"{column}: not a finite number ({value})"))
        out[column] = values
    return out


def missing_keys(frame: pd.DataFrame, key: list[str], problems: list[RowProblem], what: str) -> None:
    """A row without a key value can neither be stored nor told apart from others: a problem each."""
    for column in key:
        if column in frame.columns:
            for row in _rows(frame, frame[column].isna()):
                problems.append(RowProblem(row=row, reason=f"{what}: {column} is missing"))


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
        first = dups.loc[in_group, ROW].min() if ROW in dups.columns else None
        first_row = int(first) if first is not None and pd.notna(first) else None  # NaN keys match nothing
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


def _non_finite(extra: object) -> list[str]:
    """Keys of a free-form `extra` payload holding inf/NaN (JSON cannot store them)."""
    if not isinstance(extra, dict):
        return []
    return [str(k) for k, v in extra.items() if isinstance(v, float) and not np.isfinite(v)]


def _fmt(value: object) -> str:
    if isinstance(value, pd.Timestamp):
        return value.strftime("%Y-%m-%d")
    return str(value)


def validate_bars(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[RowProblem]]:
    problems = require_columns(frame, ["symbol", "trade_date", "close"], "bars")
    if problems:
        return frame, problems
    out = parse_dates(frame, ["trade_date"], problems)
    missing_keys(out, F.BAR_KEY, problems, "bars")
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
    missing_keys(out, F.VALUATION_KEY, problems, "valuations")
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
    missing_keys(out, F.FINANCIAL_KEY, problems, "financials")
    out = numeric(out, F.FINANCIAL_NUMERIC, problems)
    early = (out["ann_date"] < out["end_date"]).fillna(False)
    for row in _rows(out, early):
        problems.append(RowProblem(row=row, reason="financials: announced before the period ended"))
    if "report_type" not in out.columns or out["report_type"].isna().any():
        out["report_type"] = out["end_date"].dt.month.map(F.report_type_of)
    if "extra" not in out.columns:
        out["extra"] = None
    for row, extra in zip(_rows(out, out["extra"].notna()), out["extra"].dropna(), strict=True):
        for name in _non_finite(extra):
            problems.append(RowProblem(row=row, reason=f"financials: extra {name} is not a finite number"))
    out = collapse_duplicates(out, F.FINANCIAL_KEY, problems, "financials", not_compared=("extra",))
    return out, problems


def validate_securities(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[RowProblem]]:
    problems = require_columns(frame, ["symbol", "market"], "securities")
    if problems:
        return frame, problems
    _text_values(
        frame, ["symbol", "name", "industry", "market", "exchange", "currency"], problems, "securities"
    )
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
    missing_keys(out, F.DIVIDEND_KEY, problems, "dividends")
    out = numeric(out, ["cash_per_share"], problems)
    bad = ~(out["cash_per_share"] > 0)
    for row in _rows(out, bad):
        problems.append(RowProblem(row=row, reason="dividends: cash per share must be positive"))
    out = collapse_duplicates(out, F.DIVIDEND_KEY, problems, "dividends")
    return out, problems


def validate_splits(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[RowProblem]]:
    """A split needs its dates, a positive ratio other than 1 and a source; known_date defaults to
    the ex-date (the price data's splits are known the day they take effect)."""
    problems = require_columns(frame, [*F.SPLIT_KEY, "ratio", "source"], "splits")
    if problems:
        return frame, problems
    out = frame.copy()
    if "known_date" not in out.columns:
        out["known_date"] = out["ex_date"]
    out = parse_dates(out, ["ex_date", "known_date"], problems)
    out["known_date"] = out["known_date"].fillna(out["ex_date"])
    missing_keys(out, F.SPLIT_KEY, problems, "splits")
    _text_values(out, ["symbol", "source"], problems, "splits")
    out = numeric(out, ["ratio"], problems)
    bad = ~((out["ratio"] > 0) & (out["ratio"] != 1))
    for row in _rows(out, bad):
        problems.append(RowProblem(row=row, reason="splits: ratio must be positive and not 1"))
    out = collapse_duplicates(out, F.SPLIT_KEY, problems, "splits")
    return out, problems


def _text_values(frame: pd.DataFrame, columns: list[str], problems: list[RowProblem], what: str) -> None:
    """Text columns hold text (or nothing): a number or list from a JSON source is a problem."""
    for column in [c for c in columns if c in frame.columns]:
        wrong = frame[column].map(lambda v: not (isinstance(v, str) or v is None or v is pd.NA or v != v))
        for row, value in zip(_rows(frame, wrong), frame.loc[wrong, column], strict=True):
            problems.append(RowProblem(row=row, reason=f"{what}: {column} is not text ({str(value)[:40]!r})"))


def _required_values(frame: pd.DataFrame, columns: list[str], problems: list[RowProblem], what: str) -> None:
    """Columns the store cannot hold empty: blank text counts as missing too."""
    for column in columns:
        blank = frame[column].isna() | (frame[column].astype("string").str.strip() == "").fillna(True)
        for row in _rows(frame, blank):
            problems.append(RowProblem(row=row, reason=f"{what}: {column} is missing"))


def validate_news(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[RowProblem]]:
    problems = require_columns(frame, ["symbol", "title", "url"], "news")
    if problems:
        return frame, problems
    _required_values(frame, ["symbol", "title", "url"], problems, "news")
    _text_values(frame, ["symbol", "title", "summary", "body", "url", "source"], problems, "news")
    out = frame.copy()
    if "published_at" in out.columns:  # naive UTC timestamps; NULL = undated
        parsed = pd.to_datetime(out["published_at"], errors="coerce", utc=True, format="mixed")
        parsed = parsed.dt.tz_localize(None)
        bad = (parsed.isna() & out["published_at"].notna()) | (parsed < FIRST_DATE) | (parsed >= END_DATE)
        for row, value in zip(_rows(out, bad), out.loc[bad, "published_at"], strict=True):
            problems.append(RowProblem(row=row, reason=f"news: published_at {value!r} is not a usable time"))
        out["published_at"] = parsed.where(~bad)
    out = collapse_duplicates(out, ["symbol", "url"], problems, "news")
    return out, problems


def validate_filings(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[RowProblem]]:
    """Columns a source does not know are left out (an upsert then keeps the stored values)."""
    required = ["symbol", "accession_number", "form", "filed_date"]
    problems = require_columns(frame, required, "filings")
    if problems:
        return frame, problems
    _required_values(frame, required, problems, "filings")
    _text_values(frame, ["symbol", "accession_number", "form", "url", "document_text"], problems, "filings")
    out = parse_dates(frame, ["filed_date", "report_date"], problems)
    out = collapse_duplicates(out, ["symbol", "accession_number"], problems, "filings")
    return out, problems


def validate_filing_pages(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[RowProblem]]:
    key = ["symbol", "accession_number", "page_no"]
    problems = require_columns(frame, [*key, "text"], "filing_pages")
    if problems:
        return frame, problems
    _required_values(frame, ["symbol", "accession_number"], problems, "filing_pages")
    _text_values(frame, ["symbol", "accession_number", "text"], problems, "filing_pages")
    missing_keys(frame, ["text"], problems, "filing_pages")
    out = numeric(frame, ["page_no"], problems)
    bad = ~((out["page_no"] >= 1) & (out["page_no"] % 1 == 0))
    for row in _rows(out, bad):
        problems.append(RowProblem(row=row, reason="filing_pages: page_no must be a whole number from 1"))
    out["page_no"] = out["page_no"].where(~bad, 0).astype("int64")
    out = collapse_duplicates(out, key, problems, "filing_pages")
    return out, problems


VALIDATORS = {
    "securities": validate_securities,
    "bars": validate_bars,
    "valuations": validate_valuations,
    "financials": validate_financials,
    "dividends": validate_dividends,
    "splits": validate_splits,
    "news": validate_news,
    "filings": validate_filings,
    "filing_pages": validate_filing_pages,
}
