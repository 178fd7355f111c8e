"""The data one backtest window needs, read once and shared by every iteration of a run."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import cached_property

import pandas as pd

from stockdesk.strategy_lab.application.fundamentals import single_quarter
from stockdesk.strategy_lab.domain.dtos import BacktestWindow
from stockdesk.strategy_lab.domain.errors import InvalidBacktestWindowError, InvalidUniverseError
from stockdesk.strategy_lab.domain.params import CATALYST_COLUMNS
from stockdesk.strategy_lab.domain.ports import IStrategyMarketData

# Prices before `start` let the longest moving average (120 trading days) and momentum exist on day one.
WARMUP_DAYS = 250
DEFAULT_YEARS = 3
MIN_WINDOW_BARS = 60  # a symbol needs this many bars inside the window to be part of the universe
HOLIDAY_DAYS = 14  # a history starting this soon after the warm-up start is not "short" (Golden Week)
LISTED = 10  # symbols named in a note before "and N more"


@dataclass(frozen=True)
class MarketPanel:
    universe: list[str]
    markets: dict[str, str]
    start: date
    end: date
    closes: pd.DataFrame = field(repr=False)  # warm-up included
    fundamentals: pd.DataFrame = field(repr=False)
    notes: tuple[str, ...] = ()

    @cached_property
    def missing_figures(self) -> dict[str, list[str]]:
        """catalyst_type -> symbols without a single quarterly figure for it: they can never pass it."""
        missing = {}
        for catalyst, column in CATALYST_COLUMNS.items():
            known = set(self.fundamentals.dropna(subset=[column])["symbol"])
            missing[catalyst] = [s for s in self.universe if s not in known]
        return missing

    @cached_property
    def data_notes(self) -> list[str]:
        """What the strategist should know about the data: a catalyst without figures never passes."""
        notes = []
        for catalyst, blind in self.missing_figures.items():
            column = CATALYST_COLUMNS[catalyst]
            if len(blind) == len(self.universe):
                notes.append(
                    f'No symbol has quarterly {column} data: catalyst_type "{catalyst}" cannot trade.'
                )
            elif blind:
                notes.append(f"{len(blind)} of {len(self.universe)} symbols lack quarterly {column} data.")
        return notes

    @property
    def window_closes(self) -> pd.DataFrame:
        return self.closes.loc[pd.Timestamp(self.start) : pd.Timestamp(self.end)]


def load_panel(market: IStrategyMarketData, window: BacktestWindow) -> MarketPanel:
    """Resolve universe and window; read closes (with warm-up) and single-quarter fundamentals."""
    known = market.securities()
    if not known:
        raise InvalidUniverseError("the store holds no securities: run `stockdesk data load-sample` first")
    wanted = _wanted(window.universe, known)
    # without an end the whole history is read once to find it, and serves as the closes too
    history = None if window.end else _all_closes(market, wanted)
    end = window.end or history.index[-1].date()  # type: ignore[union-attr]
    start = window.start or date(end.year - DEFAULT_YEARS, end.month, min(end.day, 28))
    if start >= end:
        raise InvalidBacktestWindowError(f"the window is empty: --from {start} is not before --to {end}")
    load_from = start - timedelta(days=WARMUP_DAYS)
    if history is not None:
        closes = history.loc[pd.Timestamp(load_from) :]
    else:
        closes = market.adjusted_closes(wanted, load_from, end)
    first = closes.index[0].date() if not closes.empty else load_from
    if window.start is None and first > load_from + timedelta(days=HOLIDAY_DAYS):
        start = first + timedelta(days=WARMUP_DAYS)  # a short history: keep the warm-up, score the rest
    inside = closes.loc[pd.Timestamp(start) :]
    counts = inside.notna().sum()
    universe = [s for s in wanted if counts.get(s, 0) >= MIN_WINDOW_BARS]
    dropped = [s for s in wanted if s not in universe]
    if not universe:
        raise InvalidUniverseError(
            f"no symbol has {MIN_WINDOW_BARS} daily bars between {start} and {end} "
            f"(asked for {len(wanted)}: {', '.join(wanted[:8])}{'...' if len(wanted) > 8 else ''})"
        )
    notes = []
    if dropped:
        shown = ", ".join(dropped[:LISTED]) + (
            f" and {len(dropped) - LISTED} more" if len(dropped) > LISTED else ""
        )
        notes.append(f"left out for lack of history in the window ({len(dropped)}): {shown}")
    fundamentals = single_quarter(market.reported_financials(universe, end))
    return MarketPanel(
        universe=universe,
        markets={s: known[s] for s in universe},
        start=max(start, inside.index[0].date()),
        end=min(end, inside.index[-1].date()),
        closes=closes[universe],
        fundamentals=fundamentals,
        notes=tuple(notes),
    )


def _wanted(universe: list[str] | None, known: dict[str, str]) -> list[str]:
    if not universe:
        return sorted(known)
    asked = [s.strip().upper() for s in universe if s.strip()]
    unknown = [s for s in asked if s not in known]
    if unknown:
        raise InvalidUniverseError(f"not in the store: {', '.join(unknown)} (see `stockdesk data show`)")
    return list(dict.fromkeys(asked))


def _all_closes(market: IStrategyMarketData, symbols: list[str]) -> pd.DataFrame:
    history = market.adjusted_closes(symbols, date(1990, 1, 1), date.today())
    if history.empty:
        raise InvalidUniverseError(f"no daily bars stored for {', '.join(symbols[:8])}")
    return history
