"""The data one backtest window needs, read once and shared by every iteration of a run.

Prices are the store's raw daily bars turned into the shared execution module's TradingPanel
(adjusted closes and opens, raw opens for lots, the A-share price limits of each day), so a
strategy is scored with the same fills, limits and costs as `stockdesk evaluate`. A run's panel is
cut at the end of its selection span (`until`): the loop, the strategy code and the selection never
hold a holdout price.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from functools import cached_property

import pandas as pd

from stockdesk.backtest.application import TradingPanel, limit_lookup, trading_panel
from stockdesk.strategy_lab.application.fundamentals import CATALYST_FIGURES, single_quarter
from stockdesk.strategy_lab.application.market_data import StrategyMarketData
from stockdesk.strategy_lab.application.splits import plan_splits
from stockdesk.strategy_lab.domain.dtos import BacktestWindow, SplitConfig, SplitPlan
from stockdesk.strategy_lab.domain.errors import InvalidBacktestWindowError, InvalidUniverseError
from stockdesk.strategy_lab.domain.ports import StoredSecurity

# Prices before `start` let the longest moving average (250 trading days) and momentum exist on day one.
WARMUP_DAYS = 400
# A history too short for that still gets this much (120-day averages exist; 250-day ones start later).
SHORT_WARMUP_DAYS = 250
DEFAULT_YEARS = 3
MIN_WINDOW_BARS = 60  # a symbol needs this many bars inside the window to be part of the universe
HOLIDAY_DAYS = 14  # a history starting this soon after the warm-up start is not "short" (Golden Week)
LISTED = 10  # symbols named in a note before "and N more"
FIRST_DAY = date(1990, 1, 1)


@dataclass(frozen=True)
class MarketPanel:
    universe: list[str]
    markets: dict[str, str]
    start: date
    end: date
    trading: TradingPanel = field(repr=False)  # warm-up included
    fundamentals: pd.DataFrame = field(repr=False)
    notes: tuple[str, ...] = ()
    plan: SplitPlan | None = None

    @property
    def closes(self) -> pd.DataFrame:
        """Adjusted closes, warm-up included: what the strategy code reads."""
        return self.trading.close

    @property
    def window_closes(self) -> pd.DataFrame:
        return self.closes.loc[pd.Timestamp(self.start) : pd.Timestamp(self.end)]

    def between(self, start: date, end: date) -> TradingPanel:
        """The execution panel of one period (no warm-up: a simulation starts in cash)."""
        return self.trading.between(pd.Timestamp(start), pd.Timestamp(end))

    def until(self, day: date) -> MarketPanel:
        """What was knowable at the close of `day`: prices up to it, reports announced by it."""
        cut = pd.Timestamp(day)
        known = self.fundamentals
        if not known.empty:
            known = known.loc[pd.to_datetime(known["ann_date"]) <= cut].reset_index(drop=True)
        trading = self.trading.between(self.trading.close.index[0], cut)
        return replace(self, end=min(self.end, day), trading=trading, fundamentals=known)

    @cached_property
    def missing_figures(self) -> dict[str, list[str]]:
        """catalyst_type -> symbols without a single quarterly figure for it: they can never pass it."""
        missing = {}
        for catalyst, column in CATALYST_FIGURES.items():
            have = (
                self.fundamentals.dropna(subset=[column])
                if column in self.fundamentals
                else self.fundamentals[:0]
            )
            known = set(have["symbol"])
            missing[catalyst] = [s for s in self.universe if s not in known]
        return missing

    @cached_property
    def data_notes(self) -> list[str]:
        """What the strategist should know about the data: a catalyst without figures never passes."""
        notes = []
        for catalyst, blind in self.missing_figures.items():
            column = CATALYST_FIGURES[catalyst]
            if len(blind) == len(self.universe):
                notes.append(
                    f"No symbol has quarterly {column} data: "
                    f'momentum catalyst_type "{catalyst}" cannot trade.'
                )
            elif blind:
                notes.append(f"{len(blind)} of {len(self.universe)} symbols lack quarterly {column} data.")
        return notes


def load_panel(
    market: StrategyMarketData, window: BacktestWindow, split: SplitConfig | None = None
) -> MarketPanel:
    """Resolve universe and window; read bars (with warm-up) and single-quarter fundamentals.

    With `split`, the window's trading days are cut into the run's periods first and a symbol must
    have its bars inside the selection span (the holdout decides nothing).
    """
    if window.start is not None and window.end is not None and window.start > window.end:
        raise InvalidBacktestWindowError(  # before any read: no bars between them would say INVALID_UNIVERSE
            f"the window is empty: the start {window.start} is after the end {window.end}",
            details={"start": window.start.isoformat(), "end": window.end.isoformat()},
        )
    known = market.securities()
    if not known:
        raise InvalidUniverseError("the store holds no securities: run `stockdesk data load-sample` first")
    wanted = _wanted(window.universe, known)
    bars = market.daily_bars(
        wanted, FIRST_DAY if window.end is None else _load_from(window), window.end or date.today()
    )
    names = {symbol: security.name for symbol, security in known.items()}
    panel = trading_panel(bars, {s: known[s].market for s in wanted}, limit_lookup(names))
    closes = panel.close
    if closes.empty:
        raise InvalidUniverseError(f"no daily bars stored for {', '.join(wanted[:8])}")
    end = window.end or closes.index[-1].date()
    start = window.start or date(end.year - DEFAULT_YEARS, end.month, min(end.day, 28))
    if start >= end:
        raise InvalidBacktestWindowError(
            f"the window is empty: --from {start} is not before --to {end}",
            details={"start": start.isoformat(), "end": end.isoformat()},  # a page words it itself
        )
    load_from = start - timedelta(days=WARMUP_DAYS)
    first = closes.index[0].date()
    if window.start is None and first > load_from + timedelta(days=HOLIDAY_DAYS):
        start = first + timedelta(days=SHORT_WARMUP_DAYS)  # a short history: keep a warm-up, score the rest
    panel = panel.between(pd.Timestamp(load_from), pd.Timestamp(end))
    inside = panel.close.loc[pd.Timestamp(start) :]
    if inside.empty:
        raise InvalidUniverseError(f"no daily bars between {start} and {end}")
    plan = plan_splits(inside.index, split) if split is not None else None
    counted = inside.loc[: pd.Timestamp(plan.selection.end)] if plan is not None else inside
    counts = counted.notna().sum()
    universe = [s for s in wanted if counts.get(s, 0) >= MIN_WINDOW_BARS]
    dropped = [s for s in wanted if s not in universe]
    if not universe:
        raise InvalidUniverseError(
            f"no symbol has {MIN_WINDOW_BARS} daily bars between {start} and {end} "
            f"(asked for {len(wanted)}: {', '.join(wanted[:8])}{'...' if len(wanted) > 8 else ''})",
            details={"min_bars": MIN_WINDOW_BARS, "start": start.isoformat(), "end": end.isoformat()},
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
        markets={s: known[s].market for s in universe},
        start=max(start, inside.index[0].date()),
        end=min(end, inside.index[-1].date()),
        trading=panel.select(universe),
        fundamentals=fundamentals,
        notes=tuple(notes),
        plan=plan,
    )


def _load_from(window: BacktestWindow) -> date:
    assert window.end is not None
    start = window.start or date(window.end.year - DEFAULT_YEARS, window.end.month, min(window.end.day, 28))
    return start - timedelta(days=WARMUP_DAYS)


def _wanted(universe: list[str] | None, known: dict[str, StoredSecurity]) -> list[str]:
    if not universe:
        return sorted(known)
    asked = [s.strip().upper() for s in universe if s.strip()]
    unknown = [s for s in asked if s not in known]
    if unknown:
        raise InvalidUniverseError(
            f"not in the store: {', '.join(unknown)} (see `stockdesk data show`)",
            details={"unknown": unknown},
        )
    return list(dict.fromkeys(asked))
