"""The whole-market screen's panel: all symbols' data as of a date, one read per table.

A screen reads every stored symbol at once, so it loads one frame per table (bulk reads over
data_engineering's application interface) and computes across symbols, never symbol by symbol.
Symbols come back as a categorical column over the screened symbols: the figures map millions of
rows to symbols by its codes instead of comparing text.

The windows are StockData's own (its bar window and its three-year valuation history), so the
screen sees exactly the rows each snapshot would. Reports come as every
stored version; the figures keep those announced by as_of.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

import pandas as pd

from stockdesk.data_engineering.application import (
    GetMarketFramesUseCase,
    GetStockBasicInfoUseCase,
    ListSecuritiesUseCase,
    SecurityDTO,
)
from stockdesk.research.application.screen.long_rows import as_categories
from stockdesk.research.application.stock_data import BAR_DAYS, VALUATION_DAYS
from stockdesk.shared.errors import BadRequestException

BAR_COLUMNS = ["symbol", "trade_date", "close", "adj_factor"]
VALUATION_COLUMNS = [
    "symbol",
    "trade_date",
    "close",
    "total_mv",
    "pe_ttm",
    "pb",
    "ps_ttm",
    "dv_ratio",
    "dv_ttm",
]


@dataclass(frozen=True)
class ScreenPanel:
    """What the screen reads as of `as_of`, in the store's column names (dates as Timestamps)."""

    as_of: date
    securities: pd.DataFrame = field(repr=False)
    """symbol, name, market: the symbols screened, in output order."""
    bars: pd.DataFrame = field(repr=False)
    """symbol, trade_date, open, high, low, close, volume, adj_factor: the technical window."""
    valuations: pd.DataFrame = field(repr=False)
    """symbol, trade_date, close, total_mv, pe_ttm, pb, ps_ttm, dv_ratio, dv_ttm: the valuation window."""
    financials: pd.DataFrame = field(repr=False)
    """Every report version announced by `as_of` (end_date, ann_date, report_type and the figures)."""
    unknown: tuple[str, ...] = ()
    """Symbols asked for that the store does not hold."""


class ScreenPanelReader:
    def __init__(
        self,
        securities: ListSecuritiesUseCase,
        basic_info: GetStockBasicInfoUseCase,
        frames: GetMarketFramesUseCase,
    ):
        self._securities = securities
        self._basic_info = basic_info
        self._frames = frames

    def load(self, as_of: date, symbols: Sequence[str] | None = None) -> ScreenPanel:
        """Every stored symbol (or those of `symbols` the store holds), one read per table, only the
        windows the figures need, nothing after `as_of`."""
        known = {s.symbol: s for s in self._securities.execute()}
        wanted, unknown = (list(known), []) if symbols is None else self._resolve(symbols, known)
        securities = pd.DataFrame(
            {
                "symbol": wanted,
                "name": [known[s].name or s for s in wanted],
                "market": [known[s].market for s in wanted],
            },
            dtype=object,
        )
        if not wanted:  # an empty list would read every symbol's bars
            empty = pd.DataFrame(columns=["symbol", "trade_date"])
            return ScreenPanel(as_of, securities, empty, empty, empty, tuple(unknown))
        bars = self._frames.bars(wanted, as_of - timedelta(days=BAR_DAYS), as_of)
        valuations = self._frames.valuations(wanted, as_of - timedelta(days=VALUATION_DAYS), as_of)
        financials = self._frames.financial_versions(wanted)
        financials = financials[financials["ann_date"] <= pd.Timestamp(as_of)]
        return ScreenPanel(
            as_of=as_of,
            securities=securities,
            bars=as_categories(bars[[c for c in BAR_COLUMNS if c in bars]], wanted),
            valuations=as_categories(valuations[[c for c in VALUATION_COLUMNS if c in valuations]], wanted),
            financials=as_categories(financials.drop(columns=["extra"], errors="ignore"), wanted),
            unknown=tuple(unknown),
        )

    def _resolve(self, symbols: Sequence[str], known: dict[str, SecurityDTO]) -> tuple[list[str], list[str]]:
        """Stored symbols in the order given (other spellings looked up one by one), and the rest."""
        wanted: dict[str, None] = {}  # ordered, without repeats
        unknown: list[str] = []
        for raw in symbols:
            text = raw.strip()
            symbol = text if text in known else text.upper() if text.upper() in known else None
            if symbol is None:
                try:
                    security = self._basic_info.execute(text)
                except BadRequestException:
                    security = None
                symbol = security.symbol if security is not None and security.symbol in known else None
            if symbol is None:
                unknown.append(text)
            else:
                wanted[symbol] = None
        return list(wanted), unknown
