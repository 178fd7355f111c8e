"""What the store holds per symbol (the data page): a date range per dataset, the sync marks, gaps.

The store's coverage reads (IMarketDataRepository.ranges, bar_days, sync_marks) answer in whole-store
frames (one grouped query per table), so listing a store of thousands of symbols costs a handful of
queries, not one per symbol and dataset.
"""

from __future__ import annotations

from datetime import date, datetime

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


class DatasetCoverage(BaseModel):
    """One dataset over the whole store: how many symbols and rows, from which day to which."""

    dataset: str = Field(description="one of COVERAGE_DATASETS")
    symbols: int = 0
    rows: int = 0
    first: date | None = None
    last: date | None = None
