"""5-minute bar CSV files -> an `IntradayFile` (canonical rows) for the intraday import service.

Three layouts, told apart by the header (or chosen with `--format yfinance|akshare`):

- `yfinance`: what `yfinance.download(ticker, interval="5m").to_csv(path)` (or
  `Ticker.history(interval="5m")`) writes. Header `Datetime,Open,High,Low,Close,Adj Close,Volume`,
  in any column order (`Adj Close`, `Dividends`, `Stock Splits` are ignored), or yfinance's default
  multi-level header (`Price,Close,High,Low,Open,Volume` / `Ticker,AAPL,...` / `Datetime,,,,,`,
  whose ticker must be --symbol). Timestamps are bar STARTS in exchange time with their offset
  (`2024-07-26 09:30:00-04:00`: yfinance 1.x converts an intraday index to the exchange's zone,
  `reindex_dfs` in yfinance/multi.py). Volume in shares; no amount.
- `akshare-em`: `akshare.stock_zh_a_hist_min_em(symbol, period="5")` saved with `to_csv`
  (akshare/stock_feature/stock_hist_em.py, its kline branch): 时间,开盘,收盘,最高,最低,涨跌幅,涨跌额,
  成交量,成交额,振幅,换手率. Eastmoney's 成交量 is in lots (手, 100 shares): stored x 100 in shares, as
  the daily A-share bars are (`VOLUME_LOT` of providers/akshare_provider.py and of
  importers/tushare_csv.py); 成交额 is in CNY.
- `akshare-sina`: `akshare.stock_zh_a_minute(symbol, period="5")` (akshare/stock/stock_zh_a_sina.py):
  day,open,high,low,close,volume[,amount]. Sina's volume is in shares, amount in CNY.

Both AkShare layouts are A-share bars with naive Asia/Shanghai times that label a bar by its END (a
day's first 5-minute bar is 09:35, its last 15:00), so 5 minutes are subtracted: the store keeps bar
starts (09:30 ... 11:25, 13:00 ... 14:55). The import service's average-price check (amount / volume
within the bar's range) catches a file whose volume unit is not the one assumed here.

Naive timestamps are read in `tz` (default: the symbol's exchange zone); timestamps with an offset as
such. A leading unnamed index column (`to_csv()` without `index=False`) is ignored; blank lines are
skipped but counted, so errors name real file lines. Cells that cannot be read (timestamps, numbers)
reject the file here; value checks are the import service's.
"""

from __future__ import annotations

import csv
import warnings
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np
import pandas as pd

from stockdesk.data_engineering.application.intraday_import import IntradayFile
from stockdesk.data_engineering.application.validation import END_DATE, FIRST_DATE, ROW
from stockdesk.data_engineering.domain.exceptions import IntradayImportError, RowProblem
from stockdesk.data_engineering.domain.intraday import BASE_MINUTES
from stockdesk.data_engineering.domain.symbols import exchange_timezone, market_of, normalize_symbol
from stockdesk.shared.errors import BadRequestException

FORMATS = ("auto", "yfinance", "akshare")
ENCODINGS = ("utf-8-sig", "gb18030")  # pandas' default, and what Excel on a Chinese system saves


# layout -> {file column: canonical column}; the timestamp column first; amount is optional
LAYOUTS: dict[str, dict[str, str]] = {
    "yfinance": {
        "Datetime": "time", "Open": "open", "High": "high", "Low": "low", "Close": "close",
        "Volume": "volume",
    },
    "akshare-em": {
        "时间": "time", "开盘": "open", "最高": "high", "最低": "low", "收盘": "close",
        "成交量": "volume", "成交额": "amount",
    },
    "akshare-sina": {
        "day": "time", "open": "open", "high": "high", "low": "low", "close": "close",
        "volume": "volume", "amount": "amount",
    },
}  # fmt: skip
OPTIONAL = {"amount"}
VOLUME_UNIT = {"yfinance": 1.0, "akshare-em": 100.0, "akshare-sina": 1.0}  # -> shares
LABELS_BAR_END = {"akshare-em", "akshare-sina"}
HEADERS = {
    "yfinance": "Datetime,Open,High,Low,Close,Adj Close,Volume",
    "akshare-em": "时间,开盘,收盘,最高,最低,...,成交量,成交额,...",
    "akshare-sina": "day,open,high,low,close,volume[,amount]",
}
_OFFSET = r"(?:[+-]\d{2}:?\d{2}|Z)$"


def _refuse(source: str, reason: str, row: int | None = None, header_lines: int = 1) -> IntradayImportError:
    return IntradayImportError(source, [RowProblem(row=row, reason=reason)], header_lines)


def _zone(tz: str | None, symbol: str) -> str:
    name = (tz or "").strip() or exchange_timezone(symbol)
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise BadRequestException(
            f"unknown time zone {name!r} (use an IANA name such as America/New_York or Asia/Shanghai)",
            code="INVALID_TIMEZONE",
        ) from exc
    return name


def _head(path: Path) -> tuple[str, list[list[str]]]:
    """The encoding that reads the file, and its first three CSV records."""
    for encoding in ENCODINGS:
        try:
            with path.open(encoding=encoding, newline="") as handle:
                records = [r for r, _ in zip(csv.reader(handle), range(3), strict=False)]
                handle.read()  # the whole file must decode, not just its head
            return encoding, records
        except UnicodeDecodeError:
            continue
    raise _refuse(path.name, "not a text file in UTF-8 or GB18030")


def _header(path: Path, records: list[list[str]]) -> tuple[list[str], int, str | None]:
    """Column names, header lines and (multi-level yfinance header) the ticker the file names."""
    if not records or not any(c.strip() for c in records[0]):
        raise _refuse(path.name, "empty file: no header")
    first = [c.strip() for c in records[0]]
    second = [c.strip() for c in records[1]] if len(records) > 1 else []
    if first[0] == "Price" and second[:1] == ["Ticker"]:
        third = [c.strip() for c in records[2]] if len(records) > 2 else []
        named = bool(third) and bool(third[0]) and not any(third[1:])  # `Datetime,,,,,`: the index's name
        tickers = ",".join(sorted({t for t in second[1:] if t}))
        return [third[0] if named else "Datetime", *first[1:]], 3 if named else 2, tickers
    return first, 1, None


def _layout(path: Path, columns: list[str], fmt: str) -> str:
    candidates = {"auto": list(LAYOUTS), "yfinance": ["yfinance"], "akshare": ["akshare-em", "akshare-sina"]}
    for layout in candidates[fmt]:
        if all(c in columns for c, canonical in LAYOUTS[layout].items() if canonical not in OPTIONAL):
            return layout
    expected = " or ".join(f"'{HEADERS[layout]}'" for layout in candidates[fmt])
    wanted = "any 5-minute bar layout" if fmt == "auto" else f"the {fmt} layout"
    raise _refuse(path.name, f"header '{','.join(columns)}' does not match {wanted}; expected {expected}")


def _same_ticker(ticker: str, symbol: str) -> bool:
    """A yfinance ticker names `symbol` (Yahoo spells Shanghai listings .SS)."""
    spelled = ticker.strip().upper().removesuffix(".SS") + (".SH" if ticker.upper().endswith(".SS") else "")
    try:
        return normalize_symbol(spelled) == symbol
    except BadRequestException:
        return spelled == symbol


def _read(path: Path, encoding: str, columns: list[str], header_lines: int) -> pd.DataFrame:
    try:
        with warnings.catch_warnings():
            # pandas only warns when a row has more cells than the header, and drops them
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(
                path,
                encoding=encoding,
                skiprows=header_lines,
                header=None,
                names=columns,
                dtype=str,
                keep_default_na=False,  # only an empty cell is missing: "n/a" or "-" must be reported
                na_values=[""],
                skip_blank_lines=False,
                index_col=False,
            )
    except pd.errors.ParserWarning as exc:
        reason = "a row has more cells than the header"
        raise _refuse(path.name, reason, header_lines=header_lines) from exc
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise _refuse(path.name, f"not a readable CSV file ({text})", header_lines=header_lines) from exc
    frame[ROW] = np.arange(1, len(frame) + 1)
    blank = frame.drop(columns=[ROW]).isna().all(axis=1)
    return frame[~blank]


def _timestamps(text: pd.Series, zone: str, rows: pd.Series, problems: list[RowProblem]) -> pd.Series:
    """Bar times as aware UTC: offsets as written, naive ones localised in `zone` (an SDK's
    timezone-aware datetimes as they are)."""
    if isinstance(text.dtype, pd.DatetimeTZDtype):
        out = text.dt.tz_convert("UTC")
        problems.extend(
            RowProblem(row=int(rows[i]), reason="timestamp is missing") for i in text.index[out.isna()]
        )
        return out
    text = text.astype("string").str.strip()
    with_offset = text.str.contains(_OFFSET, regex=True, na=False)
    naive = ~with_offset & text.notna()
    out = pd.Series(pd.NaT, index=text.index, dtype="datetime64[us, UTC]")
    bad: dict[int, str] = {i: "timestamp is missing" for i in text.index[text.isna()]}
    if with_offset.any():
        parsed = _in_range(
            pd.to_datetime(text[with_offset], utc=True, format="ISO8601", errors="coerce"), bad
        )
        out[with_offset] = parsed
        bad.update(
            {i: f"unparsable timestamp {text[i]!r}" for i in parsed.index[parsed.isna()] if i not in bad}
        )
    if naive.any():
        local = _in_range(pd.to_datetime(text[naive], format="ISO8601", errors="coerce"), bad)
        if local.dt.tz is None:
            placed = local.dt.tz_localize(zone, ambiguous="NaT", nonexistent="NaT")
        else:  # every one carried an offset the pattern does not spell ("+05"): already placed
            placed = local
        out[naive] = placed.dt.tz_convert("UTC")
        bad.update(
            {i: f"unparsable timestamp {text[i]!r}" for i in local.index[local.isna()] if i not in bad}
        )
        bad.update(
            {
                i: f"time {text[i]!r} does not exist or is ambiguous in {zone} (clock change)"
                for i in local.index[local.notna() & placed.isna()]
            }
        )
    problems.extend(RowProblem(row=int(rows[i]), reason=reason) for i, reason in bad.items())
    return out


def _in_range(parsed: pd.Series, bad: dict[int, str]) -> pd.Series:
    """Times outside FIRST_DATE..END_DATE become NaT with a reason (year 9999 cannot be localised)."""
    naive = parsed.dt.tz_localize(None) if parsed.dt.tz is not None else parsed
    outside = (naive < FIRST_DATE) | (naive >= END_DATE)
    for i in parsed.index[outside]:
        bad[i] = f"time {parsed[i]} is outside {FIRST_DATE.year}-{END_DATE.year - 1}"
    return parsed.where(~outside)


def _numbers(frame: pd.DataFrame, names: dict[str, str], problems: list[RowProblem]) -> dict[str, pd.Series]:
    out: dict[str, pd.Series] = {}
    for source, canonical in names.items():
        if canonical == "time":
            continue
        if source not in frame.columns:
            out[canonical] = pd.Series(np.nan, index=frame.index)
            continue
        raw = frame[source].astype("string").str.strip().fillna("")
        values = pd.to_numeric(raw.where(raw != "", None), errors="coerce").astype("float64")
        for index in frame.index[values.isna().to_numpy() & (raw != "").to_numpy()]:
            reason = f"{source}: not a number {raw[index]!r}"
            problems.append(RowProblem(row=int(frame.at[index, ROW]), reason=reason))
        out[canonical] = values
    return out


def layout_to_canonical(
    frame: pd.DataFrame, symbol: str, layout: str, zone: str
) -> tuple[pd.DataFrame, list[RowProblem]]:
    """Rows in one of LAYOUTS (a file's cells, or an SDK's answer: the providers of `data sync` use
    this too) -> canonical INTRADAY_COLUMNS (+ `_row`): bar STARTS as aware UTC (AkShare's bar ends
    moved back 5 minutes), the exchange date, volume in shares. Cells that cannot be read are the
    problems (value checks are the import service's); `zone` places naive timestamps."""
    names = LAYOUTS[layout]
    time_column = next(c for c, canonical in names.items() if canonical == "time")
    problems: list[RowProblem] = []
    stamps = _timestamps(frame[time_column], zone, frame[ROW], problems)
    values = _numbers(frame, names, problems)
    if problems:
        return frame, sorted(problems, key=lambda p: p.row or 0)
    if layout in LABELS_BAR_END:
        stamps = stamps - pd.Timedelta(minutes=BASE_MINUTES)
    exchange = exchange_timezone(symbol)
    canonical = pd.DataFrame(
        {
            "symbol": symbol,
            "ts_utc": stamps,
            "trade_date": stamps.dt.tz_convert(exchange).dt.tz_localize(None).dt.normalize(),
            "open": values["open"],
            "high": values["high"],
            "low": values["low"],
            "close": values["close"],
            "volume": values["volume"] * VOLUME_UNIT[layout],
            "amount": values.get("amount", pd.Series(np.nan, index=frame.index)),
            "source": layout,
            ROW: frame[ROW],
        }
    )
    return canonical.reset_index(drop=True), []


def read_intraday_csv(path: Path, symbol: str, fmt: str = "auto", tz: str | None = None) -> IntradayFile:
    """Parse one file of 5-minute bars for `symbol` (see the module docstring for the layouts)."""
    symbol = normalize_symbol(symbol)
    fmt = (fmt or "auto").strip().lower()
    if fmt not in FORMATS:
        raise BadRequestException(
            f"--format must be one of {', '.join(FORMATS)} (got {fmt!r})", code="INVALID_FORMAT"
        )
    zone = _zone(tz, symbol)
    if not path.is_file():
        raise _refuse(str(path), "no such file")
    encoding, records = _head(path)
    columns, header_lines, tickers = _header(path, records)
    if columns[0] in ("", "Unnamed: 0"):
        columns[0] = "_index"  # pandas' own index column, written by to_csv() without index=False
    if "Date" in columns and "Datetime" not in columns:
        columns[columns.index("Date")] = "Datetime"  # a daily export: read, then refused as daily bars
    layout = _layout(path, columns, fmt)
    if tickers is not None and not _same_ticker(tickers, symbol):
        raise _refuse(
            path.name, f"the header names ticker {tickers}, not {symbol}", header_lines=header_lines
        )
    if layout != "yfinance" and market_of(symbol) != "CN":
        raise _refuse(
            path.name,
            f"AkShare minute files hold A-share bars (stock_zh_a_hist_min_em, stock_zh_a_minute); "
            f"{symbol} is not an A-share",
        )
    frame = _read(path, encoding, columns, header_lines)
    if frame.empty:
        raise _refuse(path.name, "no data rows", header_lines=header_lines)
    canonical, problems = layout_to_canonical(frame, symbol, layout, zone)
    if problems:
        raise IntradayImportError(path.name, problems, header_lines)
    return IntradayFile(
        source=path.name,
        symbol=symbol,
        layout=layout,
        time_zone=zone,
        frame=canonical,
        header_lines=header_lines,
    )
