"""Input checks every research expert makes, in the spec's order and with its messages and codes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from stockdesk.shared.errors import BadRequestException, NotFoundException

T = TypeVar("T")
R = TypeVar("R", bound=Sequence[object])


def require_symbol(symbol: str | None) -> str:
    """Empty or missing symbol -> 400 SYMBOL_REQUIRED before any data is fetched."""
    if symbol is None or not symbol.strip():
        raise BadRequestException("symbol is required (e.g. 600519.SH)", code="SYMBOL_REQUIRED")
    return symbol.strip()


def require_found(found: T | None, symbol: str) -> T:
    """Unknown symbol -> 404 该标的不存在, nothing more is fetched."""
    if found is None:
        raise NotFoundException(f"该标的不存在: {symbol}", code="STOCK_NOT_FOUND", details={"symbol": symbol})
    return found


def require_financials(records: R, symbol: str) -> R:
    """No financial records -> 400 该标的无财务数据 before any computation."""
    if not records:
        raise BadRequestException(f"该标的无财务数据，请先同步: {symbol}", code="NO_FINANCIAL_DATA")
    return records
