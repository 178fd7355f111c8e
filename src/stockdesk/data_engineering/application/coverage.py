"""What is stored per symbol (ranges per dataset, last sync) and the trading days its daily bars miss.

The store has no exchange calendar, so a market's trading days are the days any stored symbol of
that market has a daily bar: a symbol's gap is such a day, between its own first and last bar,
without a bar of its own (a suspension, or a hole in an import). With a single symbol of a market
there is nothing to compare with, and its gaps are unknown (None), never a reassuring 0.
Vectorised: one sorted calendar per market and `searchsorted`, no loop over days.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy as np
import pandas as pd

from stockdesk.data_engineering.domain.coverage import (
    COVERAGE_DATASETS,
    DatasetCoverage,
    DatasetRange,
    SymbolCoverage,
)
from stockdesk.data_engineering.domain.ports import IMarketDataRepository
from stockdesk.data_engineering.domain.symbols import market_of, normalize_symbol

GAP_COLUMNS = ["symbol", "missing_days", "reference_symbols"]


def _markets(symbols: pd.Series) -> pd.Series:
    return symbols.map(market_of)


def missing_trading_days(days: pd.DataFrame) -> pd.DataFrame:
    """Per symbol of `days` (symbol, trade_date): missing_days and reference_symbols (symbols of its
    market with bars); missing_days is NaN when the market has fewer than two such symbols."""
    if days.empty:
        return pd.DataFrame(columns=GAP_COLUMNS)
    frame = days[["symbol", "trade_date"]].drop_duplicates()
    frame = frame.assign(market=_markets(frame["symbol"]))
    parts = []
    for _market, group in frame.groupby("market", sort=False):
        calendar = np.unique(group["trade_date"].to_numpy())
        spans = group.groupby("symbol")["trade_date"].agg(["min", "max", "count"])
        expected = np.searchsorted(calendar, spans["max"].to_numpy(), side="right") - np.searchsorted(
            calendar, spans["min"].to_numpy(), side="left"
        )
        references = len(spans)
        missing = (expected - spans["count"].to_numpy()).astype(float)
        if references < 2:
            missing[:] = np.nan
        parts.append(
            pd.DataFrame({"symbol": spans.index, "missing_days": missing, "reference_symbols": references})
        )
    return pd.concat(parts, ignore_index=True)[GAP_COLUMNS]


def _missing_in_window(days: pd.DataFrame, symbol: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The market's trading days from the symbol's first to its last bar, and which of them it
    lacks; None when they cannot be told (no other symbol of its market, or no bars)."""
    frame = days[["symbol", "trade_date"]].drop_duplicates()
    peers = frame[_markets(frame["symbol"]) == market_of(symbol)]
    own = np.unique(peers.loc[peers["symbol"] == symbol, "trade_date"].to_numpy())
    if own.size == 0 or peers["symbol"].nunique() < 2:
        return None
    calendar = np.unique(peers["trade_date"].to_numpy())
    window = calendar[(calendar >= own[0]) & (calendar <= own[-1])]
    return window, ~np.isin(window, own)


def missing_dates(days: pd.DataFrame, symbol: str, limit: int = 50) -> list[date] | None:
    """The first `limit` missing trading days of one symbol (see the module docstring), oldest first;
    None when they cannot be told (no other symbol of its market, or no bars)."""
    found = _missing_in_window(days, symbol)
    if found is None:
        return None
    window, missing = found
    return [pd.Timestamp(day).date() for day in window[missing][:limit]]


@dataclass(frozen=True)
class Gap:
    """A run of consecutive trading days a symbol's daily bars miss."""

    first: date
    last: date
    days: int


def long_gaps(days: pd.DataFrame, symbol: str, longer_than: int = 10) -> list[Gap]:
    """The runs of more than `longer_than` consecutive missing trading days, oldest first: a hole a
    count of missing days hides (601318.SH's 2020-06..2023-01 looked like "67 missing days")."""
    found = _missing_in_window(days, symbol)
    if found is None:
        return []
    window, missing = found
    edges = np.flatnonzero(np.diff(np.concatenate(([0], missing.astype(np.int8), [0]))))
    starts, ends = edges[::2], edges[1::2]  # each run is window[start:end]
    return [
        Gap(first=pd.Timestamp(window[a]).date(), last=pd.Timestamp(window[b - 1]).date(), days=int(b - a))
        for a, b in zip(starts, ends, strict=True)
        if b - a > longer_than
    ]


@dataclass(frozen=True)
class MissingDays:
    """A symbol's missing trading days (None: they cannot be told) and its long runs of them."""

    dates: list[date] | None
    long_gaps: list[Gap]


class StoreCoverageUseCase:
    def __init__(self, repository: IMarketDataRepository):
        self._repository = repository

    def execute(self, text: str = "", market: str | None = None) -> list[SymbolCoverage]:
        """Every stored symbol (a security, data, or a sync record), by symbol; `text` filters by a
        case-insensitive part of the symbol or name, `market` (CN, US, HK, TW) by market."""
        securities = {s.symbol: s for s in self._repository.list_securities()}
        ranges = self._repository.ranges()
        marks = self._repository.sync_marks()
        marks = marks[marks["symbol"] != "*"]  # derived-valuation failures are not a symbol's
        gaps = missing_trading_days(self._repository.bar_days()).set_index("symbol")
        symbols = sorted(set(securities) | set(ranges["symbol"]) | set(marks["symbol"]))
        by_symbol = {sym: group for sym, group in ranges.groupby("symbol")}
        marks_by = marks.set_index("symbol")
        needle = text.strip().lower()
        wanted_market = (market or "").strip().upper()
        rows: list[SymbolCoverage] = []
        for symbol in symbols:
            security = securities.get(symbol)
            name = security.name if security else None
            row_market = security.market if security else market_of(symbol)
            if needle and needle not in symbol.lower() and needle not in (name or "").lower():
                continue
            if wanted_market and row_market != wanted_market:
                continue
            datasets = {}
            group = by_symbol.get(symbol)
            if group is not None:
                for record in group.itertuples(index=False):
                    datasets[record.dataset] = DatasetRange(
                        rows=record.rows, first=record.first, last=record.last
                    )
            missing = gaps["missing_days"].get(symbol) if symbol in gaps.index else None
            rows.append(
                SymbolCoverage(
                    symbol=symbol,
                    name=name,
                    market=row_market,
                    datasets={d: datasets[d] for d in COVERAGE_DATASETS if d in datasets},
                    synced_through=_value(marks_by, symbol, "synced_through"),
                    last_sync_failure=_value(marks_by, symbol, "last_failure"),
                    missing_days=None if missing is None or pd.isna(missing) else int(missing),
                )
            )
        return rows

    def datasets(self) -> list[DatasetCoverage]:
        """Each dataset holding rows, over the whole store (`stockdesk doctor`), in COVERAGE_DATASETS
        order: from the one grouped range read, without the gaps (which read every bar's day)."""
        ranges = self._repository.ranges()
        found = []
        for dataset in COVERAGE_DATASETS:
            part = ranges[ranges["dataset"] == dataset]
            if part.empty:
                continue
            firsts = [d for d in part["first"] if d is not None and not pd.isna(d)]
            lasts = [d for d in part["last"] if d is not None and not pd.isna(d)]
            found.append(
                DatasetCoverage(
                    dataset=dataset,
                    symbols=int(part["symbol"].nunique()),
                    rows=int(part["rows"].sum()),
                    first=min(firsts) if firsts else None,
                    last=max(lasts) if lasts else None,
                )
            )
        return found

    def one(self, symbol: str) -> SymbolCoverage | None:
        """One symbol's coverage row (None when the store holds nothing of it)."""
        canonical = normalize_symbol(symbol)
        return next((row for row in self.execute(canonical) if row.symbol == canonical), None)

    def missing_dates(self, symbol: str, limit: int = 50) -> list[date] | None:
        """The trading days its daily bars miss (see `missing_dates`)."""
        return missing_dates(self._repository.bar_days(), normalize_symbol(symbol), limit)

    def missing(self, symbol: str, limit: int = 50, longer_than: int = 10) -> MissingDays:
        """Its first `limit` missing trading days and its runs of more than `longer_than` of them,
        from one read of the store's bar days (it is the whole store's)."""
        days, canonical = self._repository.bar_days(), normalize_symbol(symbol)
        return MissingDays(missing_dates(days, canonical, limit), long_gaps(days, canonical, longer_than))


def _value(frame: pd.DataFrame, symbol: str, column: str) -> Any:
    if symbol not in frame.index:
        return None
    value = frame.at[symbol, column]
    return None if value is None or pd.isna(value) else value
