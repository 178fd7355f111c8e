"""Yahoo Finance daily history CSV (`yfinance` `Ticker.history(auto_adjust=False)`) -> canonical frames.

Header `Date,Open,High,Low,Close,Adj Close,Volume,Dividends,Stock Splits`; dates ISO (`2004-08-19`,
optionally with a time and UTC offset as yfinance writes them) or m/d/Y (`12/12/1980`); `Adj Close`
may be absent (auto-adjusted exports).

Yahoo restates the whole history after every split: `Open..Close`, `Volume` and `Dividends` are in
today's shares. Canonical bars hold the prices actually traded that day (like Tushare `daily`),
because SEC EPS and share counts are stated as reported at the time and valuations divide one by the
other. So prices and dividends are multiplied, and volume divided, by the product of the split ratios
after each day; the latest stretch (after the last split) is Yahoo's values unchanged.
`adj_factor = Adj Close / close`, so `close * adj_factor / latest adj_factor` is the adjusted price.
`pre_close` is the previous close on the day's share basis (split days get a comparable return).
Cannot-parse problems (dates, numbers) reject the file here with row numbers; value checks (positive
prices, high >= low) are done by the import service on the canonical frames.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from stockdesk.data_engineering.application.validation import ROW, numeric, parse_dates
from stockdesk.data_engineering.domain.exceptions import ImportValidationError, RowProblem
from stockdesk.data_engineering.domain.splits import PRICES, ratio_after
from stockdesk.data_engineering.domain.symbols import CURRENCY, market_of, normalize_symbol
from stockdesk.data_engineering.infrastructure.importers import ImportGroup

REQUIRED = ["Date", "Open", "High", "Low", "Close", "Volume"]
NUMBERS = ["Open", "High", "Low", "Close", "Adj Close", "Volume", "Dividends", "Stock Splits"]
HEADER = ",".join(["Date", *NUMBERS])


def read_yfinance_csv(path: Path, symbol: str) -> list[ImportGroup]:
    """One group (security, bars, dividends, splits) for one symbol's history file."""
    symbol = normalize_symbol(symbol)
    raw = _read(path)
    frame = _parsed(raw, path).sort_values(["Date", ROW], kind="stable").reset_index(drop=True)
    frames = {
        "securities": bare_security(symbol),
        "bars": to_bars(frame, symbol),
        "dividends": to_dividends(frame, symbol),
        "splits": to_splits(frame, symbol),
    }
    return [ImportGroup(source=f"{path.name} ({symbol})", frames=frames)]


def _read(path: Path) -> pd.DataFrame:
    if not path.is_file():
        raise ImportValidationError(str(path), [RowProblem(row=None, reason="no such file")])
    try:
        frame = pd.read_csv(path, dtype={"Date": "string"})
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        reason = f"not a readable CSV file ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
        raise ImportValidationError(path.name, [RowProblem(row=None, reason=reason)]) from exc
    frame.columns = [str(c).strip() for c in frame.columns]
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        reason = f"missing Yahoo Finance column(s) {', '.join(missing)}; expected {HEADER}"
        raise ImportValidationError(path.name, [RowProblem(row=None, reason=reason)])
    if frame.empty:
        raise ImportValidationError(path.name, [RowProblem(row=None, reason="no data rows")])
    frame[ROW] = np.arange(1, len(frame) + 1)
    return frame


def _parsed(frame: pd.DataFrame, path: Path) -> pd.DataFrame:
    """Dates and numbers parsed; any cell that cannot be read rejects the file with its row."""
    problems: list[RowProblem] = []
    out = frame.copy()
    # yfinance writes `2024-07-30 00:00:00-04:00`: the exchange-local date is the trading day
    out["Date"] = out["Date"].str.strip().str.replace(r"^(\d{4}-\d{2}-\d{2})[ T].*$", r"\1", regex=True)
    out = parse_dates(out, ["Date"], problems)
    out = numeric(out, NUMBERS, problems)
    negative = (out[["Volume", "Dividends", "Stock Splits"]] < 0).any(axis=1)
    problems.extend(
        RowProblem(row=int(r), reason="Volume, Dividends and Stock Splits cannot be negative")
        for r in out.loc[negative, ROW]
    )
    problems.extend(
        RowProblem(row=int(r), reason="Adj Close must be positive")
        for r in out.loc[out["Adj Close"] <= 0, ROW]
    )
    if problems:
        raise ImportValidationError(path.name, sorted(problems, key=lambda p: p.row or 0))
    return out


def split_factor_after(frame: pd.DataFrame) -> pd.Series:
    """Product of the split ratios strictly after each row (rows sorted by date; 0/blank = no split)."""
    return ratio_after(frame["Stock Splits"])


def to_bars(frame: pd.DataFrame, symbol: str) -> pd.DataFrame:
    """Traded prices (see module docstring), previous close, change in percent and adj factor."""
    after = split_factor_after(frame)
    close = frame["Close"] * after
    pre_close = frame["Close"].shift(1) * after  # yesterday's close in today's shares
    adjusted = frame["Adj Close"].where(frame["Adj Close"].notna(), frame["Close"])
    return pd.DataFrame(
        {
            "symbol": symbol,
            "trade_date": frame["Date"],
            "open": frame["Open"] * after,
            "high": frame["High"] * after,
            "low": frame["Low"] * after,
            "close": close,
            "pre_close": pre_close,
            "pct_chg": (close / pre_close - 1.0) * 100.0,
            "volume": frame["Volume"] / after,
            "amount": np.nan,
            "adj_factor": (adjusted / close).where(close > 0),
            ROW: frame[ROW],
        }
    )


def to_dividends(frame: pd.DataFrame, symbol: str) -> pd.DataFrame:
    """Cash per share as paid at the time (un-split like prices), by ex-date."""
    paid = frame["Dividends"].fillna(0) > 0
    cash = frame["Dividends"] * split_factor_after(frame)
    return pd.DataFrame(
        {
            "symbol": symbol,
            "ex_date": frame.loc[paid, "Date"],
            "cash_per_share": cash[paid],
            ROW: frame.loc[paid, ROW],
        }
    )


def to_splits(frame: pd.DataFrame, symbol: str) -> pd.DataFrame:
    """The `Stock Splits` events (ratio on its ex-date, known that day): they put the filings'
    per-share figures on the basis of the traded prices (`domain/splits.py`)."""
    split = (frame["Stock Splits"].fillna(0) > 0) & (frame["Stock Splits"] != 1)
    return pd.DataFrame(
        {
            "symbol": symbol,
            "ex_date": frame.loc[split, "Date"],
            "ratio": frame.loc[split, "Stock Splits"],
            "known_date": frame.loc[split, "Date"],
            "source": PRICES,
            ROW: frame.loc[split, ROW],
        }
    )


def bare_security(symbol: str) -> pd.DataFrame:
    """Only what the symbol itself says. Other columns are left out, not blank: an upsert then leaves a
    fuller row (from SEC, say) alone; a JSON `provider_codes` of None would be stored as JSON null."""
    market = market_of(symbol)
    return pd.DataFrame([{"symbol": symbol, "market": market, "currency": CURRENCY[market]}])
