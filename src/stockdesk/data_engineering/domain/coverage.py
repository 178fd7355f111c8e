"""What the store holds per symbol (the data page): a date range per dataset, the sync marks, gaps.

The reader port answers in whole-store frames (one grouped query per table), so listing a store of
thousands of symbols costs a handful of queries, not one per symbol and dataset.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import date, datetime

import pandas as pd
from pydantic import BaseModel, Field

# datasets in the order a coverage table shows them; "bars_5m" is the intraday store
COVERAGE_DATASETS = ("bars", "valuations", "financials", "news", "filings", "bars_5m")


class DatasetRange(BaseModel):
    rows: int = 0
    first: date | None = None
    last: date | None = None


class SymbolCoverage(BaseModel):
    symbol: str
    name: str | None = None
    market: str | None = None
    datasets: dict[str, DatasetRange] = Field(default_factory=dict, description="by COVERAGE_DATASETS")
    synced_through: date | None = Field(default=None, description="latest `data sync` done-through date")
    last_sync_failure: datetime | None = Field(default=None, description="when a sync last failed here")
    missing_days: int | None = Field(
        default=None,
        description="market trading days between the first and last daily bar without a bar of this "
        "symbol; None when no other stored symbol of its market tells the trading days",
    )


class ICoverageReader(ABC):
    """Whole-store coverage reads, as frames."""

    @abstractmethod
    def ranges(self) -> pd.DataFrame:
        """One row per (symbol, dataset) with data: columns symbol, dataset, rows, first, last (dates)."""

    @abstractmethod
    def bar_days(self, symbols: list[str] | None = None) -> pd.DataFrame:
        """Every stored daily bar's (symbol, trade_date), trade_date as datetime64; all symbols if None."""

    @abstractmethod
    def sync_marks(self) -> pd.DataFrame:
        """One row per synced symbol: symbol, synced_through (date), last_failure (datetime or None)."""
