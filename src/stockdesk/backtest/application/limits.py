"""China A-share daily price limits: which fraction applies to a security, and the limit prices.

A symbol is a China A-share when it ends in .SH, .SZ or .BJ; anything else (AAPL, 0700.HK) has no
daily limit here (None). For A-shares the limit is a fraction of the previous close:
- Beijing Stock Exchange (.BJ): 30 %, risk-warning (ST) shares included.
- STAR Market (688xxx.SH, 689xxx.SH): 20 %, ST shares included.
- ChiNext (30xxxx.SZ: 300/301/302): 20 % (ST included) from 2020-08-24, the registration reform's
  first trading day; before it 10 %, and 5 % for ST shares, as on the main board.
- Main board (everything else): 10 %; 5 % for risk-warning shares (name starting with "ST" or "*ST",
  case-insensitive) before 2026-07-06, when the Shanghai and Shenzhen exchanges raised the main-board
  ST limit to 10 % (an exchange notice; the date is as reported, check it against the notice if
  ST limits in mid-2026 matter).
Limit prices are previous close x (1 +/- fraction) rounded half-up to 0.01 CNY, as the exchanges
compute them (10.05 x 1.1 = 11.055 -> 11.06).

Known limitations: the ST test reads the security name as stored today, not as it was on the
trading day (a share that has since gained or lost its ST cap is misjudged on the older days); the
first days of new listings (no limit on the registration-based boards) are not modelled, nor the
special rules for shares resuming after a long suspension or delisting-period trading.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import date, datetime

import numpy as np
import pandas as pd

CN_EXCHANGES = frozenset({"SH", "SZ", "BJ"})
CHINEXT_REFORM = date(2020, 8, 24)
"""First trading day of ChiNext under the registration system: its limit went from 10 % to 20 %."""
MAIN_BOARD_ST_UNIFIED = date(2026, 7, 6)
"""From this day main-board ST shares have the main board's 10 % limit instead of 5 %."""

MAIN_LIMIT = 0.10
ST_LIMIT = 0.05
GROWTH_BOARD_LIMIT = 0.20
BEIJING_LIMIT = 0.30

_ST_NAME = re.compile(r"^\s*\*?\s*ST", re.IGNORECASE)
_BASIS = 10_000
"""Fractions are taken in whole basis points, prices in whole fen (0.01 CNY): integer arithmetic."""

LimitLookup = Callable[[str, date], float | None]
"""(symbol, trade_date) -> limit fraction or None: how the fills take limits that vary by date."""


def is_st(name: str | None) -> bool:
    """The security name marks a risk warning: it starts with "ST" or "*ST" (case-insensitive)."""
    return bool(name) and _ST_NAME.match(str(name)) is not None


def limit_fraction(symbol: str, name: str | None, trade_date: date | datetime | str) -> float | None:
    """The daily limit of `symbol` on `trade_date` as a fraction of the previous close; None: no limit.

    `name` is the security name (for the ST test; None or "" = not ST). See the module docstring.
    """
    code, _, exchange = str(symbol).strip().upper().rpartition(".")
    if exchange not in CN_EXCHANGES or not code:
        return None
    day = trade_date if type(trade_date) is date else pd.Timestamp(trade_date).date()
    if exchange == "BJ":
        return BEIJING_LIMIT
    if exchange == "SH" and code.startswith(("688", "689")):
        return GROWTH_BOARD_LIMIT
    if exchange == "SZ" and code.startswith("30"):
        if day >= CHINEXT_REFORM:
            return GROWTH_BOARD_LIMIT
        return ST_LIMIT if is_st(name) else MAIN_LIMIT
    if is_st(name) and day < MAIN_BOARD_ST_UNIFIED:
        return ST_LIMIT
    return MAIN_LIMIT


def limit_lookup(names: Mapping[str, str | None]) -> LimitLookup:
    """A (symbol, trade_date) -> fraction lookup for `fills.entry_fills`, from each symbol's name."""

    def lookup(symbol: str, trade_date: date) -> float | None:
        return limit_fraction(symbol, names.get(symbol), trade_date)

    return lookup


def limit_prices(pre_close: float, fraction: float) -> tuple[float, float]:
    """(limit-up, limit-down) from the previous close: pre_close x (1 +/- fraction), half-up to 0.01."""
    up, down = limit_price_arrays(np.array([pre_close], dtype="float64"), np.array([fraction]))
    return float(up[0]), float(down[0])


def limit_price_arrays(pre_close: np.ndarray, fraction: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised `limit_prices` (NaN in, NaN out).

    Exact: the previous close is taken in whole fen and the fraction in whole basis points, so the
    product is an integer and the half-up rounding has no binary-float error (1.65 x 0.9 = 1.485
    is 1.4849999999999999 in floats, which rounds to 1.48 instead of the exchange's 1.49).
    """
    pre = np.asarray(pre_close, dtype="float64")
    frac = np.broadcast_to(np.asarray(fraction, dtype="float64"), pre.shape)
    valid = np.isfinite(pre) & np.isfinite(frac)
    fen = np.where(valid, np.rint(pre * 100.0), 0.0).astype("int64")
    bps = np.where(valid, np.rint(frac * _BASIS), 0.0).astype("int64")
    half = _BASIS // 2
    up = (fen * (_BASIS + bps) + half) // _BASIS
    down = (fen * (_BASIS - bps) + half) // _BASIS
    return np.where(valid, up / 100.0, np.nan), np.where(valid, down / 100.0, np.nan)
