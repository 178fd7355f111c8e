"""Canonical symbols: `600519.SH`, `000001.SZ`, `830799.BJ`, `AAPL`, `0700.HK`, `2330.TW`.

Accepts the spellings providers use (`sh.600000`, `SH600000`, `600519`, `aapl`) and says which
market a symbol belongs to, so that callers never branch on raw provider codes.
"""

from __future__ import annotations

import re

from stockdesk.shared.errors import BadRequestException

_CN_SUFFIX = re.compile(r"^(\d{6})\.(SH|SZ|BJ)$")
_CN_PREFIX = re.compile(r"^(SH|SZ|BJ)\.?(\d{6})$")
_OTHER = re.compile(r"^(\d{4,5})\.(HK|TW)$")
_US = re.compile(r"^[A-Z][A-Z0-9.\-]{0,9}$")

CURRENCY = {"CN": "CNY", "US": "USD", "HK": "HKD", "TW": "TWD"}


def cn_exchange(code: str) -> str:
    """Exchange of a bare 6-digit A-share code, by its leading digits."""
    if code.startswith(("6", "9")):
        return "SH"
    if code.startswith(("0", "2", "3")):
        return "SZ"
    if code.startswith(("4", "8")):
        return "BJ"
    raise BadRequestException(f"cannot tell the exchange of A-share code '{code}'", code="INVALID_SYMBOL")


def normalize_symbol(raw: str) -> str:
    """Canonical form of a symbol; raises BadRequestException (INVALID_SYMBOL) when it is not one."""
    text = raw.strip().upper() if isinstance(raw, str) else ""  # a blank cell may arrive as NA
    if not text:
        raise BadRequestException("symbol is required", code="SYMBOL_REQUIRED")
    if _CN_SUFFIX.match(text) or _OTHER.match(text):
        return text
    if match := _CN_PREFIX.match(text):
        return f"{match.group(2)}.{match.group(1)}"
    if text.isdigit() and len(text) == 6:
        return f"{text}.{cn_exchange(text)}"
    if _US.match(text):
        return text
    raise BadRequestException(f"{raw!r} is not a stock symbol (e.g. 600519.SH, AAPL)", code="INVALID_SYMBOL")


def market_of(symbol: str) -> str:
    """CN, HK, TW or US."""
    if _CN_SUFFIX.match(symbol):
        return "CN"
    if symbol.endswith(".HK"):
        return "HK"
    if symbol.endswith(".TW"):
        return "TW"
    return "US"


def currency_of(symbol: str) -> str:
    """The listing currency of a canonical symbol (its market's): what its prices are quoted in."""
    return CURRENCY[market_of(symbol)]


def exchange_of(symbol: str) -> str:
    market = market_of(symbol)
    if market == "CN":
        return symbol.rsplit(".", 1)[1]
    return {"HK": "HKEX", "TW": "TWSE"}.get(market, "US")


EXCHANGE_TIMEZONE = {
    "CN": "Asia/Shanghai",
    "US": "America/New_York",
    "HK": "Asia/Hong_Kong",
    "TW": "Asia/Taipei",
}


def exchange_timezone(symbol: str) -> str:
    """IANA zone of the symbol's exchange: the clock its trading day and intraday bars run on."""
    return EXCHANGE_TIMEZONE[market_of(symbol)]
