"""A store with the split fixture (fixtures/sec_split/README.md) and Yahoo-style price data."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd

from stockdesk.data_engineering.application.derived_valuations import DerivedValuationService
from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.importers import ImportGroup
from stockdesk.data_engineering.infrastructure.importers.sec_json import company_group
from stockdesk.data_engineering.infrastructure.importers.yfinance_csv import read_yfinance_csv
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository

FIXTURE = Path(__file__).parent / "fixtures" / "sec_split"
FACTS = json.loads((FIXTURE / "companyfacts" / "CIK0000067890.json").read_text())
SUBMISSIONS = json.loads((FIXTURE / "submissions" / "CIK0000067890.json").read_text())
SYMBOL = "TENX"
SPLIT_DAY = date(2024, 6, 10)
BEFORE, AFTER, RESTATED = date(2024, 5, 31), date(2024, 6, 28), date(2024, 7, 26)
PRICE = 132.0  # traded before the split; 13.20 after


def yahoo_csv(path: Path, splits: dict[date, float], price: dict[date, float] | None = None) -> Path:
    """Business days 2024-04-01..2024-08-30 as Yahoo writes them: every price on today's shares."""
    days = pd.bdate_range("2024-04-01", "2024-08-30")
    ratio = pd.Series([splits.get(d.date(), 0.0) for d in days])
    later = ratio.where(ratio > 0, 1.0)[::-1].cumprod()[::-1] / ratio.where(ratio > 0, 1.0)
    traded = pd.Series(
        [(price or {}).get(d.date(), PRICE if d.date() < SPLIT_DAY else PRICE / 10) for d in days]
    )
    close = traded / later
    frame = pd.DataFrame(
        {"Date": days.strftime("%Y-%m-%d"), "Open": close, "High": close, "Low": close, "Close": close,
         "Adj Close": close, "Volume": 1_000_000 * later, "Dividends": 0.0, "Stock Splits": ratio}
    )  # fmt: skip
    frame.to_csv(path, index=False)
    return path


def load(
    repository: SqlMarketDataRepository,
    facts: dict[str, Any] = FACTS,
    prices: Path | None = None,
) -> None:
    """The SEC group (and the price file when given) through the import service, then derived valuations."""
    service = MarketDataImportService(repository)
    groups: list[ImportGroup] = [
        company_group("0000067890", {"companyfacts": (FIXTURE, facts), "submissions": (FIXTURE, SUBMISSIONS)})
    ]
    if prices is not None:
        groups += read_yfinance_csv(prices, SYMBOL)
    for group in groups:
        service.import_frames(group.source, group.frames)
    DerivedValuationService(repository).refresh([SYMBOL])
