"""Small helpers the provider adapters share."""

from __future__ import annotations

import importlib
from datetime import date
from typing import Any

import numpy as np
import pandas as pd

from stockdesk.data_engineering.application.validation import ROW
from stockdesk.data_engineering.domain import frames as F
from stockdesk.data_engineering.domain.exceptions import ProviderUnavailableError
from stockdesk.data_engineering.domain.ports import IMarketDataProvider
from stockdesk.shared.errors import ConfigurationError, StockdeskError


def with_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Add the 1-based `_row` column validation reports problems with (row of the provider's answer)."""
    out = frame.reset_index(drop=True)
    return pd.concat([out, pd.Series(np.arange(1, len(out) + 1), name=ROW)], axis=1)


def empty(columns: list[str]) -> pd.DataFrame:
    """'The source has nothing for this' (not a failure): the sync then asks the next provider."""
    return pd.DataFrame(columns=columns)


def require(frame: pd.DataFrame, columns: list[str], provider: str, what: str) -> None:
    """A response without the columns we map means the SDK changed: fail with the names."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ProviderUnavailableError(f"{provider} {what}: response lacks column(s) {', '.join(missing)}")


def in_window(frame: pd.DataFrame, column: str, start: date, end: date) -> pd.DataFrame:
    days = pd.to_datetime(frame[column])
    return frame[(days >= pd.Timestamp(start)) & (days <= pd.Timestamp(end))]


def ymd(day: date) -> str:
    return day.strftime("%Y%m%d")


class UnconfiguredProvider(IMarketDataProvider):
    """Stands in for a provider that could not be built (e.g. a missing env var).

    Calls for the datasets it would have served fail with the same one-line reason, so the sync
    records why the source was not used; the others answer empty, as the real provider would.
    """

    def __init__(self, name: str, markets: tuple[str, ...], error: StockdeskError, serves: tuple[str, ...]):
        self.name = name
        self.markets = markets
        self.error = error
        self.serves = serves

    def _answer(self, dataset: str, columns: list[str]) -> pd.DataFrame:
        if dataset in self.serves:
            raise type(self.error)(self.error.message)
        return empty(columns)

    def security(self, symbol: str) -> pd.DataFrame:
        return self._answer("security", F.SECURITY_COLUMNS)

    def bars(self, symbol: str, start: date, end: date) -> pd.DataFrame:
        return self._answer("bars", F.BAR_COLUMNS)

    def valuations(self, symbol: str, start: date, end: date) -> pd.DataFrame:
        return self._answer("valuations", F.VALUATION_COLUMNS)

    def financials(self, symbol: str) -> pd.DataFrame:
        return self._answer("financials", F.FINANCIAL_COLUMNS)


def import_sdk(module: str) -> Any:
    """Import a provider SDK on first use, with the install hint when it is missing."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        raise ConfigurationError(f"{module} is not installed: pip install 'stockdesk[providers]'") from exc
