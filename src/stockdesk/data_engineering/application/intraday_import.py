"""Import 5-minute bars: every row of a file is checked first, then the file is written or nothing is.

A reader (`infrastructure/importers/intraday_csv.py`) turns a file into an `IntradayFile` with the
canonical columns (`frames.INTRADAY_COLUMNS`: bar START as aware UTC, exchange date, prices, volume
in shares, amount in currency units). Here the file is refused, with the lines at fault, when:

- its bars are not 5 minutes apart (the spacing seen most often within a day decides; the error says
  what interval that is: 1-minute, 15-minute, daily ...);
- a bar does not start on a 5-minute boundary, or two rows have the same start;
- a price is missing or not positive, high < max(open, close) or low > min(open, close);
- volume is missing or negative, amount negative;
- amount / volume (the bar's average price) lies outside [low, high] by more than 5%: the volume is
  in the wrong unit (lots instead of shares) or the prices are adjusted while the amount is not.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

import numpy as np
import pandas as pd
from pydantic import BaseModel

from stockdesk.data_engineering.application.validation import ROW, numeric, parse_dates, require_columns
from stockdesk.data_engineering.domain import frames as F
from stockdesk.data_engineering.domain.exceptions import IntradayImportError, RowProblem
from stockdesk.data_engineering.domain.intraday import BASE_MINUTES
from stockdesk.data_engineering.domain.ports import IMarketDataRepository
from stockdesk.data_engineering.domain.symbols import exchange_timezone, normalize_symbol
from stockdesk.shared.errors import BadRequestException

logger = logging.getLogger(__name__)
AVERAGE_PRICE_TOLERANCE = 0.05
PRICES = ["open", "high", "low", "close"]


@dataclass
class IntradayFile:
    """One parsed file: canonical rows (with the 1-based data row in `_row`) and how it was read."""

    source: str  # the file's name, as errors name it
    symbol: str
    layout: str  # yfinance, akshare-em, akshare-sina
    time_zone: str  # the zone naive timestamps were read in
    frame: pd.DataFrame
    header_lines: int = 1  # data row r is file line r + header_lines


class IntradayImportResult(BaseModel):
    source: str
    symbol: str
    layout: str
    time_zone: str
    rows_read: int
    new: int
    changed: int
    unchanged: int
    trading_days: int
    first_bar: datetime | None = None  # exchange-local bar start
    last_bar: datetime | None = None


def _describe(spacing: pd.Timedelta) -> str:
    minutes = spacing.total_seconds() / 60
    if minutes >= 24 * 60 and minutes % (24 * 60) == 0:
        return f"{int(minutes // (24 * 60))}-day"
    if minutes >= 60 and minutes % 60 == 0:
        return f"{int(minutes // 60)}-hour"
    if minutes == int(minutes):
        return f"{int(minutes)}-minute"
    return f"{spacing.total_seconds():g}-second"


def detected_interval(frame: pd.DataFrame, zone: str) -> str | None:
    """What the file holds when it is not 5-minute bars (None when it is, or cannot be told: one bar a
    day that is not at midnight)."""
    stamps = frame[["trade_date", "ts_utc"]].drop_duplicates().sort_values("ts_utc")
    gaps = stamps.groupby("trade_date")["ts_utc"].diff().dropna()
    gaps = gaps[gaps > pd.Timedelta(0)]
    if gaps.empty:
        local = stamps["ts_utc"].dt.tz_convert(zone)
        if len(stamps) > 1 and (local == local.dt.normalize()).all():
            return "daily bars (one a day, at midnight)"
        return None
    counts = gaps.value_counts()
    spacing = counts[counts == counts.max()].index.min()  # most frequent; the shorter one on a tie
    if spacing == pd.Timedelta(minutes=BASE_MINUTES):
        return None
    return f"{_describe(spacing)} bars (the most common spacing within a day is {_describe(spacing)})"


def validate_intraday(frame: pd.DataFrame, zone: str, header_lines: int = 1) -> list[RowProblem]:
    """Every problem of the file (a wrong interval alone: per-row reasons would only repeat it).

    `zone` is the exchange's; `frame` holds canonical columns and `_row`; `header_lines` 0: the rows
    are not a file's lines (a Parquet table, a provider's answer).
    """
    wrong = detected_interval(frame.dropna(subset=["ts_utc"]), zone)
    if wrong:
        return [RowProblem(row=None, reason=f"detected {wrong}; only 5-minute bars can be imported")]
    problems: list[RowProblem] = []

    def add(mask: pd.Series, reason: object) -> None:
        for index in frame.index[mask.fillna(False).to_numpy(dtype=bool)]:
            text = reason(frame.loc[index]) if callable(reason) else str(reason)
            problems.append(RowProblem(row=int(frame.at[index, ROW]), reason=text))

    stamps = frame["ts_utc"]
    off_grid = (stamps.dt.second != 0) | (stamps.dt.microsecond != 0) | (stamps.dt.minute % BASE_MINUTES != 0)
    add(off_grid, lambda r: f"bar start {r['ts_utc'].isoformat()} is not on a 5-minute boundary")
    first_row = frame.groupby("ts_utc")[ROW].transform("min")
    unit = "line" if header_lines else "row"  # a file's line, or a frame's row (header_lines 0)
    add(
        stamps.duplicated(keep="first"),
        lambda r: (
            f"bar start {r['ts_utc'].isoformat()} repeats {unit} {int(first_row[r.name]) + header_lines}"
        ),
    )
    for column in [*PRICES, "volume", "amount"]:  # inf passes every comparison below and SQLite stores it
        add(frame[column].abs() == np.inf, lambda r, c=column: f"{c} is not a finite number ({r[c]})")
    for column in PRICES:
        add(frame[column].isna(), f"{column} is missing")
        add(frame[column] <= 0, lambda r, c=column: f"{c} must be positive, got {r[c]:g}")
    top = frame[["open", "close"]].max(axis=1)
    bottom = frame[["open", "close"]].min(axis=1)
    add(
        frame["high"] < top,
        lambda r: f"high {r['high']:g} is below max(open, close) {max(r['open'], r['close']):g}",
    )
    add(
        frame["low"] > bottom,
        lambda r: f"low {r['low']:g} is above min(open, close) {min(r['open'], r['close']):g}",
    )
    add(frame["volume"].isna(), "volume is missing")
    add(frame["volume"] < 0, lambda r: f"volume cannot be negative, got {r['volume']:g}")
    add(frame["amount"] < 0, lambda r: f"amount cannot be negative, got {r['amount']:g}")
    average = frame["amount"] / frame["volume"].where(frame["volume"] > 0)
    outside = (average < frame["low"] * (1 - AVERAGE_PRICE_TOLERANCE)) | (
        average > frame["high"] * (1 + AVERAGE_PRICE_TOLERANCE)
    )
    add(
        outside,
        lambda r: (
            f"average price amount/volume {r['amount'] / r['volume']:.4g} is outside low..high "
            f"{r['low']:g}..{r['high']:g}: volume not in shares, or adjusted prices"
        ),
    )
    return sorted(problems, key=lambda p: p.row or 0)


def _symbol_problems(frame: pd.DataFrame, problems: list[RowProblem]) -> pd.Series:
    """Rows whose symbol is missing or not canonical (each a problem); the mask of the usable ones."""
    text = frame["symbol"].astype("string").str.strip()
    usable = pd.Series(False, index=frame.index)
    for value in text.dropna().unique():
        try:
            canonical = normalize_symbol(str(value))
        except BadRequestException:
            canonical = None
        if canonical == value:
            usable |= text == value
    for index in frame.index[~usable.to_numpy()]:
        raw = frame.at[index, "symbol"]
        reason = "symbol is missing" if pd.isna(raw) else f"symbol {raw!r} is not a canonical symbol"
        problems.append(RowProblem(row=int(frame.at[index, ROW]), reason=reason))
    return usable


def _trade_date_problems(frame: pd.DataFrame, zone: str, problems: list[RowProblem]) -> None:
    """`trade_date` must be the exchange-local date of the bar start: reads are point in time by it."""
    local = frame["ts_utc"].dt.tz_convert(zone).dt.tz_localize(None).dt.normalize()
    wrong = frame["trade_date"].notna() & frame["ts_utc"].notna() & (frame["trade_date"] != local)
    for index in frame.index[wrong.to_numpy()]:
        problems.append(
            RowProblem(
                row=int(frame.at[index, ROW]),
                reason=f"trade_date {frame.at[index, 'trade_date']:%Y-%m-%d} is not the {zone} date "
                f"{local[index]:%Y-%m-%d} of the bar starting {frame.at[index, 'ts_utc'].isoformat()}",
            )
        )


def validate_intraday_frame(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[RowProblem]]:
    """A canonical `bars_5m` frame of any number of symbols (a Parquet export, a sync's answer): the
    import service's validator for the table. Each symbol's bars get the file checks above in its
    exchange's zone (one symbol's bars may share instants with another's); `ts_utc` must be a time
    (naive values are read as UTC, the column's convention), `trade_date` the exchange date of it."""
    problems = require_columns(frame, [c for c in F.INTRADAY_COLUMNS if c != "amount"], "bars_5m")
    if problems:
        return frame, problems
    out = frame.copy() if ROW in frame.columns else frame.assign(**{ROW: np.arange(1, len(frame) + 1)})
    out["ts_utc"] = pd.to_datetime(out["ts_utc"], utc=True, errors="coerce")
    for index in out.index[out["ts_utc"].isna().to_numpy()]:
        problems.append(RowProblem(row=int(out.at[index, ROW]), reason="ts_utc is missing or not a time"))
    out = parse_dates(out, ["trade_date"], problems)
    out = numeric(out, [*PRICES, "volume", "amount"], problems)
    for column in ("trade_date", "source"):
        for index in out.index[out[column].isna().to_numpy() & frame[column].isna().to_numpy()]:
            problems.append(RowProblem(row=int(out.at[index, ROW]), reason=f"{column} is missing"))
    usable = _symbol_problems(out, problems)
    for symbol, mine in out[usable & out["ts_utc"].notna()].groupby("symbol", sort=True):
        zone = exchange_timezone(str(symbol))
        problems.extend(validate_intraday(mine, zone, header_lines=0))
        _trade_date_problems(mine, zone, problems)
    out = out.sort_values(["symbol", "ts_utc"]) if not problems else out
    return out[[*F.INTRADAY_COLUMNS, ROW]], sorted(problems, key=lambda p: p.row or 0)


class IntradayImportService:
    def __init__(self, repository: IMarketDataRepository):
        self._repository = repository

    def import_file(self, parsed: IntradayFile) -> IntradayImportResult:
        """All or nothing: any problem rejects the file with its lines; a rerun changes nothing."""
        frame = parsed.frame
        if frame.empty:
            raise IntradayImportError(parsed.source, [RowProblem(row=None, reason="no data rows")])
        zone = exchange_timezone(parsed.symbol)
        problems = validate_intraday(frame, zone, parsed.header_lines)
        if problems:
            logger.warning("intraday import of %s rejected: %d problem(s)", parsed.source, len(problems))
            raise IntradayImportError(parsed.source, problems, parsed.header_lines)
        frame = frame.sort_values("ts_utc").drop(columns=[ROW], errors="ignore")
        counts = self._repository.write_intraday_bars(frame)
        result = IntradayImportResult(
            source=parsed.source,
            symbol=parsed.symbol,
            layout=parsed.layout,
            time_zone=parsed.time_zone,
            rows_read=len(frame),
            new=counts.new,
            changed=counts.changed,
            unchanged=counts.unchanged,
            trading_days=frame["trade_date"].nunique(),
            first_bar=frame["ts_utc"].iloc[0].to_pydatetime().astimezone(ZoneInfo(zone)),
            last_bar=frame["ts_utc"].iloc[-1].to_pydatetime().astimezone(ZoneInfo(zone)),
        )
        logger.info("imported intraday %s: %s", parsed.source, counts)
        return result
