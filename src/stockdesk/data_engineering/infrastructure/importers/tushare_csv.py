"""Tushare Pro CSV exports -> canonical frames.

Native column names as returned by `tushare.pro_api()` endpoints `daily`, `daily_basic`,
`adj_factor`, `fina_indicator` and `stock_basic`. Unit conversions (Tushare docs): `daily.vol` is in
lots of 100 shares, `daily.amount` in 1,000 CNY, `daily_basic.total_mv`/`circ_mv` in 10,000 CNY.
Files are grouped by symbol: one symbol's files are validated together and written in one
transaction, so a bad file leaves nothing of its symbol half-written.

`fina_indicator` returns each report more than once (revisions of the same announcement, marked by
`update_flag` where the export keeps it; they differ in a few rounded digits or blanks). They are
collapsed here to one row per (ts_code, end_date, ann_date): the updated revision if `update_flag`
says so, else the first row as Tushare returned it, its blanks filled from the other rows. Any other
duplicate key with different values is still rejected by the validator.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from stockdesk.data_engineering.application.validation import ROW
from stockdesk.data_engineering.domain import frames as F
from stockdesk.data_engineering.domain.exceptions import ImportValidationError, RowProblem
from stockdesk.data_engineering.domain.symbols import CURRENCY, exchange_of, market_of, normalize_symbol
from stockdesk.data_engineering.infrastructure.importers import ImportGroup
from stockdesk.shared.errors import BadRequestException

FILE_PATTERN = re.compile(
    r"^(?P<kind>daily_basic|daily|adj_factor|fina_indicator)_(?P<code>\d{6})_(?P<exchange>SH|SZ|BJ)"
    r"(?:_(?P<start>\d{8})_(?P<end>\d{8}))?\.csv$"
)
UNIVERSE_PATTERN = re.compile(r"^(stock_basic.*|universe)\.csv$")

VOLUME_LOT = 100.0  # daily.vol: lots of 100 shares
AMOUNT_UNIT = 1_000.0  # daily.amount: 1,000 CNY
MV_UNIT = 10_000.0  # daily_basic.total_mv / circ_mv: 10,000 CNY

VALUATION_SOURCE = ["close", "pe", "pe_ttm", "pb", "ps", "ps_ttm", "dv_ratio", "dv_ttm", "turnover_rate"]
FINANCIAL_DIRECT = [c for c in F.FINANCIAL_NUMERIC if c not in ("revenue", "net_profit", "total_shares")]
NOT_EXTRA = {"ts_code", "ann_date", "end_date", "update_flag", *FINANCIAL_DIRECT}


def read_csv(path: Path) -> pd.DataFrame:
    """The file's rows plus `_row`; a file pandas cannot read (empty, ragged, not UTF-8) is refused."""
    text_columns = ("ts_code", "trade_date", "ann_date", "end_date", "list_date", "symbol")
    try:
        frame = pd.read_csv(path, dtype=dict.fromkeys(text_columns, "string"))
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        reason = f"not a readable CSV file ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
        raise ImportValidationError(path.name, [RowProblem(row=None, reason=reason)]) from exc
    rows = pd.Series(np.arange(1, len(frame) + 1), index=frame.index, name=ROW)
    return pd.concat([frame, rows], axis=1)


def collapse_report_versions(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per announced report (see module docstring)."""
    key = ["ts_code", "end_date", "ann_date"]
    if "update_flag" in frame.columns:
        flag = pd.to_numeric(frame["update_flag"], errors="coerce").fillna(0)
        frame = (
            frame.assign(_flag=flag)
            .sort_values("_flag", ascending=False, kind="stable")
            .drop(columns="_flag")
        )
    # grouping by Series (not names) and rebuilding the key columns with one concat keeps the
    # 100+ column frame in few blocks (reset_index would insert column by column)
    values = frame.drop(columns=key).groupby([frame[k] for k in key], sort=False, dropna=False).first()
    keys = pd.DataFrame(list(values.index), columns=key, index=values.index)
    return pd.concat([keys, values], axis=1).reset_index(drop=True)[frame.columns]


def _require(frame: pd.DataFrame, columns: list[str], path: Path) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ImportValidationError(
            path.name, [RowProblem(row=None, reason=f"missing Tushare column(s) {', '.join(missing)}")]
        )


def _symbols(frame: pd.DataFrame, path: Path) -> pd.Series:
    """`ts_code` -> canonical symbol per row; a blank or malformed code rejects the file with its rows."""
    canonical: dict[str, str] = {}
    problems: list[RowProblem] = []
    for code in frame["ts_code"].dropna().unique():
        try:
            canonical[code] = normalize_symbol(code)
        except BadRequestException as exc:
            rows = frame.loc[frame["ts_code"] == code, ROW]
            problems += [RowProblem(row=int(r), reason=f"ts_code: {exc.message}") for r in rows]
    problems += [
        RowProblem(row=int(r), reason="ts_code is blank") for r in frame.loc[frame["ts_code"].isna(), ROW]
    ]
    if problems:
        raise ImportValidationError(path.name, sorted(problems, key=lambda p: p.row or 0))
    return frame["ts_code"].map(canonical).astype(object)


def daily_to_bars(frame: pd.DataFrame, path: Path) -> pd.DataFrame:
    _require(frame, ["ts_code", "trade_date", "open", "high", "low", "close", "vol", "amount"], path)
    out = pd.DataFrame(
        {
            "symbol": _symbols(frame, path),
            "trade_date": frame["trade_date"],
            "open": frame["open"],
            "high": frame["high"],
            "low": frame["low"],
            "close": frame["close"],
            "pre_close": frame.get("pre_close"),
            "pct_chg": frame.get("pct_chg"),
            "volume": pd.to_numeric(frame["vol"], errors="coerce") * VOLUME_LOT,
            "amount": pd.to_numeric(frame["amount"], errors="coerce") * AMOUNT_UNIT,
            ROW: frame[ROW],
        }
    )
    return out


def daily_basic_to_valuations(frame: pd.DataFrame, path: Path) -> pd.DataFrame:
    _require(frame, ["ts_code", "trade_date"], path)
    out = pd.DataFrame({"symbol": _symbols(frame, path), "trade_date": frame["trade_date"]})
    for column in VALUATION_SOURCE:
        out[column] = frame[column] if column in frame.columns else np.nan
    for column in ("total_mv", "circ_mv"):
        out[column] = (
            pd.to_numeric(frame.get(column), errors="coerce") * MV_UNIT if column in frame else np.nan
        )
    out["is_derived"] = False
    out[ROW] = frame[ROW]
    return out


def fina_indicator_to_financials(frame: pd.DataFrame, path: Path) -> pd.DataFrame:
    _require(frame, ["ts_code", "ann_date", "end_date"], path)
    out = pd.DataFrame(
        {
            "symbol": _symbols(frame, path),
            "end_date": frame["end_date"],
            "ann_date": frame["ann_date"],
        }
    )
    for column in FINANCIAL_DIRECT:
        out[column] = frame[column] if column in frame.columns else np.nan
    extra_cols = [c for c in frame.columns if c not in NOT_EXTRA and c != ROW]
    out["extra"] = [_non_null(record) for record in frame[extra_cols].to_dict("records")]
    out[ROW] = frame[ROW]
    return out


def _non_null(record: dict[str, Any]) -> dict[str, Any]:
    return {
        k: (float(v) if isinstance(v, (int, float, np.number)) else v)
        for k, v in record.items()
        if pd.notna(v)
    }


def universe_to_securities(frame: pd.DataFrame, path: Path) -> pd.DataFrame:
    _require(frame, ["ts_code"], path)
    symbols = _symbols(frame, path)
    industry = frame["industry"] if "industry" in frame.columns else frame.get("industry_name")
    return pd.DataFrame(
        {
            "symbol": symbols,
            "name": frame.get("name"),
            "industry": industry,
            "market": symbols.map(market_of),
            "exchange": symbols.map(exchange_of),
            "currency": symbols.map(lambda s: CURRENCY[market_of(s)]),
            "list_date": frame.get("list_date"),
            "provider_codes": [{"tushare": code} for code in frame["ts_code"]],
            ROW: frame[ROW],
        }
    )


def bare_security(symbol: str) -> pd.DataFrame:
    """A security row for a symbol that has data files but no stock_basic entry."""
    market = market_of(symbol)
    return pd.DataFrame(
        [{"symbol": symbol, "name": None, "industry": None, "market": market, "exchange": exchange_of(symbol),
          "currency": CURRENCY[market], "list_date": None, "provider_codes": {"tushare": symbol}}]
    )  # fmt: skip


def read_tushare_folder(folder: Path) -> list[ImportGroup]:
    """One group for the universe file(s), then one group per symbol."""
    if not folder.is_dir():
        raise ImportValidationError(str(folder), [RowProblem(row=None, reason="not a directory")])
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".csv")
    per_symbol: dict[str, dict[str, Path]] = defaultdict(dict)
    universes: list[Path] = []
    for path in files:
        if UNIVERSE_PATTERN.match(path.name):
            universes.append(path)
        elif match := FILE_PATTERN.match(path.name):
            per_symbol[f"{match['code']}.{match['exchange']}"][match["kind"]] = path
    if not universes and not per_symbol:
        raise ImportValidationError(
            str(folder),
            [RowProblem(row=None, reason="no Tushare CSV files (daily_<code>_<exchange>_...csv)")],
        )
    groups: list[ImportGroup] = []
    known: set[str] = set()
    for path in universes:
        securities = universe_to_securities(read_csv(path), path)
        known.update(securities["symbol"])
        groups.append(ImportGroup(source=path.name, frames={"securities": securities}))
    for symbol, paths in sorted(per_symbol.items()):
        groups.append(_symbol_group(symbol, paths, known))
    return groups


def _symbol_group(symbol: str, paths: dict[str, Path], known: set[str]) -> ImportGroup:
    frames: dict[str, pd.DataFrame] = {}
    if symbol not in known:
        frames["securities"] = bare_security(symbol)
    if "daily" in paths:
        bars = daily_to_bars(read_csv(paths["daily"]), paths["daily"])
        if "adj_factor" in paths:
            adj = read_csv(paths["adj_factor"])
            _require(adj, ["ts_code", "trade_date", "adj_factor"], paths["adj_factor"])
            factors = adj.drop_duplicates("trade_date", keep="first").set_index("trade_date")["adj_factor"]
            bars["adj_factor"] = bars["trade_date"].map(factors)
        frames["bars"] = bars
    if "daily_basic" in paths:
        frames["valuations"] = daily_basic_to_valuations(read_csv(paths["daily_basic"]), paths["daily_basic"])
    if "fina_indicator" in paths:
        path = paths["fina_indicator"]
        raw = read_csv(path)
        _require(raw, ["ts_code", "ann_date", "end_date"], path)
        frames["financials"] = fina_indicator_to_financials(collapse_report_versions(raw), path)
    source = f"{symbol} [{', '.join(sorted(paths))}]"
    return ImportGroup(source=source, frames=frames)
