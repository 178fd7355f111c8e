"""`data sync`: fetch each symbol's datasets from its market's providers and store what validates.

Per symbol and dataset the providers are tried in order; an error (network, SDK, rejected data)
is recorded with its reason and the next provider is asked, so one bad source or symbol never stops
the run. Each dataset of a symbol is validated and written in its own transaction, then marked done
through the end date: a rerun skips what is done and fetches bars and valuations only from the day
after. Symbols whose sources report no valuations get derived ones (PE/PB/PS from prices and reports).

5-minute bars (`bars_5m`) are fetched only when asked for (`datasets`), from the market's providers that
serve them (AkShare for A-shares, yfinance elsewhere, whose 60-day window refuses an older start with a
recorded one-line reason). A day is marked done only once it is over: a sync during today's session
fetches today again next time, so the rest of the day's bars are not lost.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from datetime import date, timedelta
from typing import Literal

import pandas as pd
from pydantic import BaseModel, Field, computed_field

from stockdesk.data_engineering.application.derived_valuations import DerivedValuationService
from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.domain.exceptions import ImportValidationError
from stockdesk.data_engineering.domain.ports import (
    IMarketDataProvider,
    IMarketDataRepository,
    ISyncStateRepository,
)
from stockdesk.data_engineering.domain.splits import PRICES
from stockdesk.data_engineering.domain.symbols import CURRENCY, exchange_of, market_of, normalize_symbol
from stockdesk.shared.errors import BadRequestException, one_line

logger = logging.getLogger(__name__)

DATASETS = ("security", "bars", "valuations", "financials")  # what a sync fetches unless told otherwise
INTRADAY = "bars_5m"
ALL_DATASETS = (*DATASETS, INTRADAY)
TABLE_OF = {
    "security": "securities", "bars": "bars", "valuations": "valuations", "financials": "financials",
    INTRADAY: "bars_5m",
}  # fmt: skip
WINDOWED = {"bars", "valuations", INTRADAY}  # series: a rerun asks only for the days after done_through
DERIVED_FROM = {"bars", "valuations", "financials"}  # what derived valuations are computed from
DIVIDEND_COLUMN = "cash_dividend"  # optional on bars frames: cash per share on the ex-date
SPLIT_COLUMN = "split_ratio"  # optional on bars frames: new shares per old one on the ex-date

Status = Literal["written", "empty", "up-to-date", "failed"]
Progress = Callable[[str, str | None], None]  # (symbol, dataset), dataset None once the symbol is done


class SyncFailure(BaseModel):
    provider: str
    symbol: str
    dataset: str
    reason: str


class DatasetOutcome(BaseModel):
    symbol: str
    dataset: str
    status: Status
    provider: str | None = None
    rows: int = 0
    fetched_from: date | None = None


class SyncSummary(BaseModel):
    run_id: str
    market: str
    start: date
    end: date
    symbols: list[str]
    outcomes: list[DatasetOutcome] = Field(default_factory=list)
    failures: list[SyncFailure] = Field(default_factory=list)
    derived_valuations: int = 0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def symbol_status(self) -> dict[str, str]:
        """Per symbol: ok, partial (a dataset failed, another was written), failed (a dataset failed and
        nothing was written: "empty" answers need no network) or up-to-date (nothing was due)."""
        status: dict[str, str] = {}
        for symbol in self.symbols:
            states = {o.status for o in self.outcomes if o.symbol == symbol}
            if "failed" in states:
                status[symbol] = "partial" if "written" in states else "failed"
            else:
                status[symbol] = "up-to-date" if states == {"up-to-date"} else "ok"
        return status

    @computed_field  # type: ignore[prop-decorator]
    @property
    def all_failed(self) -> bool:
        return bool(self.symbols) and all(s == "failed" for s in self.symbol_status.values())


def bare_security(symbol: str) -> pd.DataFrame:
    """Enough of a security row for `data show` when no provider could tell more about it."""
    market = market_of(symbol)
    row = {"symbol": symbol, "market": market, "exchange": exchange_of(symbol), "currency": CURRENCY[market]}
    return pd.DataFrame([row])


class SyncService:
    def __init__(
        self,
        providers_by_market: dict[str, list[IMarketDataProvider]],
        repository: IMarketDataRepository,
        state: ISyncStateRepository,
        *,
        today: Callable[[], date] = date.today,
    ):
        self._providers = {market.upper(): list(p) for market, p in providers_by_market.items()}
        self._repository = repository
        self._state = state
        self._importer = MarketDataImportService(repository)
        self._derived = DerivedValuationService(repository)
        self._today = today

    def providers_for(self, market: str) -> list[IMarketDataProvider]:
        providers = self._providers.get(market.upper())
        if not providers:
            known = ", ".join(sorted(m.lower() for m in self._providers)) or "none"
            raise BadRequestException(
                f"no data provider for market '{market.lower()}' (known: {known})", code="MARKET"
            )
        return providers

    @staticmethod
    def datasets(asked: Iterable[str] | None = None) -> tuple[str, ...]:
        """The datasets to fetch, in fetch order (None or empty: DATASETS); 400 INVALID_DATASET for an
        unknown name."""
        names = {a.strip().lower() for a in asked or () if a.strip()}
        unknown = sorted(names - set(ALL_DATASETS))
        if unknown:
            raise BadRequestException(
                f"unknown dataset(s) {', '.join(unknown)} (one of {', '.join(ALL_DATASETS)})",
                code="INVALID_DATASET",
            )
        return tuple(d for d in ALL_DATASETS if d in names) or DATASETS

    def plan(
        self, market: str, symbols: Iterable[str], start: date, end: date
    ) -> tuple[str, list[str], date, date]:
        """The checked request (400s: unknown market, bad or foreign symbol, start after end), so a job
        can be refused before it is queued: (market, canonical symbols, start, end clipped to today)."""
        market = market.upper()
        self.providers_for(market)
        wanted = list(dict.fromkeys(normalize_symbol(s) for s in symbols))
        foreign = [s for s in wanted if market_of(s) != market]
        if foreign:
            raise BadRequestException(f"not {market} symbols: {', '.join(foreign)}", code="INVALID_SYMBOL")
        end = min(end, self._today())  # nothing after today exists yet; done_through must not claim it
        if start > end:
            raise BadRequestException(f"--from {start} is after --to {end}", code="INVALID_DATE")
        return market, wanted, start, end

    def sync(
        self,
        market: str,
        symbols: Iterable[str],
        start: date,
        end: date,
        run_id: str,
        progress: Progress | None = None,
        datasets: Iterable[str] | None = None,
    ) -> SyncSummary:
        """Sync every symbol's `datasets` (default DATASETS); never raises for a provider's failure (see
        `SyncSummary.failures`)."""
        market, wanted, start, end = self.plan(market, symbols, start, end)
        chosen = self.datasets(datasets)
        providers = self.providers_for(market)
        summary = SyncSummary(run_id=run_id, market=market, start=start, end=end, symbols=wanted)
        for symbol in wanted:
            for dataset in chosen:
                if progress:
                    progress(symbol, dataset)
                serving = _serving(providers, dataset)
                if serving:
                    outcome = self._sync_dataset(
                        run_id, serving, symbol, dataset, start, end, summary.failures
                    )
                else:
                    reason = f"no {market} provider serves {dataset}"
                    self._fail(run_id, "-", symbol, dataset, reason, summary.failures)
                    outcome = DatasetOutcome(symbol=symbol, dataset=dataset, status="failed")
                summary.outcomes.append(outcome)
            if progress:
                progress(symbol, None)
        if DERIVED_FROM.intersection(chosen):
            summary.derived_valuations = self._refresh_derived(run_id, wanted, summary.failures)
        return summary

    def _refresh_derived(self, run_id: str, symbols: list[str], failures: list[SyncFailure]) -> int:
        """Derived valuations come after the fetched data is safe: an error here is recorded, not raised."""
        try:
            return self._derived.refresh(symbols)
        except Exception as exc:
            logger.warning("derived valuations for %d symbols failed", len(symbols), exc_info=exc)
            self._fail(run_id, "derived", "*", "valuations", f"{type(exc).__name__}: {exc}", failures)
            return 0

    def _sync_dataset(
        self,
        run_id: str,
        providers: list[IMarketDataProvider],
        symbol: str,
        dataset: str,
        start: date,
        end: date,
        failures: list[SyncFailure],
    ) -> DatasetOutcome:
        done = self._state.done_through(symbol, dataset)
        if done is not None and done >= end:
            return DatasetOutcome(symbol=symbol, dataset=dataset, status="up-to-date")
        through = end
        if dataset == INTRADAY and end >= self._today():  # today's session may not be over yet
            through = end - timedelta(days=1)
        fetch_from = max(start, done + timedelta(days=1)) if done and dataset in WINDOWED else start
        answered = failed = False
        for provider in providers:
            try:
                frame = self._fetch(provider, dataset, symbol, fetch_from, end)
                frames = None if frame is None or frame.empty else self._tables(dataset, symbol, frame)
            except Exception as exc:  # network, SDK, configuration or mapping: record, ask the next one
                reason = one_line(exc)
                logger.warning("%s %s from %s: %s", symbol, dataset, provider.name, reason, exc_info=exc)
                self._fail(run_id, provider.name, symbol, dataset, reason, failures)
                failed = True
                continue
            if frames is None:
                answered = True
                continue
            try:  # store errors propagate: a broken database should stop the run, not fill the log
                result = self._importer.import_frames(f"{provider.name}:{symbol}:{dataset}", frames)
            except ImportValidationError as exc:
                self._fail(run_id, provider.name, symbol, dataset, exc.message, failures)
                failed = True
                continue
            self._mark_done(symbol, dataset, done, through)
            rows = result.rows.get(TABLE_OF[dataset], 0)
            return DatasetOutcome(
                symbol=symbol, dataset=dataset, status="written", provider=provider.name, rows=rows,
                fetched_from=fetch_from if dataset in WINDOWED else None,
            )  # fmt: skip
        if answered and not failed:  # "nothing there" counts as done only when no source was in trouble
            self._mark_done(symbol, dataset, done, through)
            return DatasetOutcome(symbol=symbol, dataset=dataset, status="empty")
        return DatasetOutcome(symbol=symbol, dataset=dataset, status="failed")

    def _mark_done(self, symbol: str, dataset: str, done: date | None, through: date) -> None:
        """Record the dataset done through `through` (done < end here; never moved back)."""
        if done is None or through > done:
            self._state.mark_done(symbol, dataset, through)

    def _fail(
        self, run_id: str, provider: str, symbol: str, dataset: str, reason: str, failures: list[SyncFailure]
    ) -> None:
        reason = " ".join(reason.split())[:500]
        self._state.record_failure(run_id, provider, symbol, dataset, reason)
        failures.append(SyncFailure(provider=provider, symbol=symbol, dataset=dataset, reason=reason))

    @staticmethod
    def _fetch(
        provider: IMarketDataProvider, dataset: str, symbol: str, start: date, end: date
    ) -> pd.DataFrame:
        if dataset == "security":
            return provider.security(symbol)
        if dataset == "bars":
            return provider.bars(symbol, start, end)
        if dataset == "valuations":
            return provider.valuations(symbol, start, end)
        if dataset == INTRADAY:
            return provider.bars_5m(symbol, start, end)
        return provider.financials(symbol)

    def _tables(self, dataset: str, symbol: str, frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
        """The frames written in the dataset's transaction: its table, dividends, splits, a bare security."""
        frames = {TABLE_OF[dataset]: frame.drop(columns=[DIVIDEND_COLUMN, SPLIT_COLUMN], errors="ignore")}
        if SPLIT_COLUMN in frame.columns:
            split = frame[pd.to_numeric(frame[SPLIT_COLUMN], errors="coerce") > 0]
            if len(split):
                day = pd.to_datetime(split["trade_date"]).to_numpy()
                frames["splits"] = pd.DataFrame(
                    {"symbol": split["symbol"].to_numpy(), "ex_date": day, "known_date": day,
                     "ratio": pd.to_numeric(split[SPLIT_COLUMN]).to_numpy(), "source": PRICES}
                )  # fmt: skip
        if DIVIDEND_COLUMN in frame.columns:
            paid = frame[pd.to_numeric(frame[DIVIDEND_COLUMN], errors="coerce") > 0]
            if len(paid):
                frames["dividends"] = pd.DataFrame(
                    {
                        "symbol": paid["symbol"].to_numpy(),
                        "ex_date": pd.to_datetime(paid["trade_date"]).to_numpy(),
                        "cash_per_share": pd.to_numeric(paid[DIVIDEND_COLUMN]).to_numpy(),
                    }
                )
        if dataset != "security" and self._repository.get_security(symbol) is None:
            frames["securities"] = bare_security(symbol)
        return frames


def _serving(providers: list[IMarketDataProvider], dataset: str) -> list[IMarketDataProvider]:
    """The providers a dataset is asked of: all of them, but only those with 5-minute bars for those."""
    if dataset != INTRADAY:
        return providers
    return [p for p in providers if p.serves_bars_5m]
