"""The dates x symbols prices `execute` trades on: adjusted prices for returns, raw prices for lots and
price limits, and each symbol's market for its costs and rules.

Built from the long bars frame of `fills` (same conventions: a suspended day - no bar, volume 0 - is
NaN in every frame; adjusted = raw x adj_factor; the limit reference is pre_close, else the previous
trading close). The index is every day on which any symbol traded, sorted; columns are the symbols
in the bars, sorted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

import numpy as np
import pandas as pd

from stockdesk.backtest.application.fills import LimitSource, limit_fractions, trading_bars
from stockdesk.backtest.application.limits import limit_price_arrays
from stockdesk.shared.errors import BadRequestException

Day = date | pd.Timestamp | str


@dataclass(frozen=True, eq=False)
class TradingPanel:
    """Aligned dates x symbols frames (NaN: no trade that day) and symbol -> market."""

    close: pd.DataFrame
    """Adjusted closes."""
    open: pd.DataFrame
    """Adjusted opens."""
    raw_open: pd.DataFrame
    """Raw opens: what a lot costs, and what the limits are compared with."""
    limit_up: pd.DataFrame
    """Raw limit-up price of the day (NaN: no limit)."""
    limit_down: pd.DataFrame
    markets: dict[str, str]
    raw_close: pd.DataFrame | None = field(default=None)
    """Raw closes, compared with limit-down before a stop sells at the close (None: the adjusted)."""

    def __post_init__(self) -> None:
        frames = {"open": self.open, "raw_open": self.raw_open, "limit_up": self.limit_up}
        frames |= {"limit_down": self.limit_down}
        if self.raw_close is not None:
            frames["raw_close"] = self.raw_close
        for name, frame in frames.items():
            if not frame.index.equals(self.close.index) or not frame.columns.equals(self.close.columns):
                raise BadRequestException(f"panel {name} must have the dates and symbols of close")
        lacking = [s for s in self.close.columns if s not in self.markets]
        if lacking:
            raise BadRequestException(f"panel has no market for {lacking[:5]}")

    @property
    def closes_raw(self) -> pd.DataFrame:
        return self.close if self.raw_close is None else self.raw_close

    def between(self, start: Day | None, end: Day | None) -> TradingPanel:
        """The days from `start` to `end` (both inclusive, None: open-ended); keeping a warm-up is the
        caller's business."""
        first = None if start is None else pd.Timestamp(start)
        last = None if end is None else pd.Timestamp(end)
        return self._each(lambda frame: frame.loc[first:last], self.markets)

    def select(self, symbols: Sequence[str]) -> TradingPanel:
        """Only `symbols` (in that order), every frame alike."""
        wanted = list(symbols)
        return self._each(lambda frame: frame.loc[:, wanted], {s: self.markets[s] for s in wanted})

    def _each(self, cut: Callable[[pd.DataFrame], pd.DataFrame], markets: dict[str, str]) -> TradingPanel:
        return TradingPanel(
            close=cut(self.close),
            open=cut(self.open),
            raw_open=cut(self.raw_open),
            limit_up=cut(self.limit_up),
            limit_down=cut(self.limit_down),
            markets=markets,
            raw_close=None if self.raw_close is None else cut(self.raw_close),
        )


def trading_panel(
    bars: pd.DataFrame, markets: Mapping[str, str], limits: LimitSource | None = None
) -> TradingPanel:
    """The panel of `bars` (see the module docstring); `markets` must name every symbol in the bars,
    `limits` gives the limit fractions (None: no limits; a callable is asked once per bar)."""
    rows = trading_bars(bars)
    has_bar = np.ones(len(rows), dtype=bool)
    fraction = limit_fractions(rows["symbol"].to_numpy(), rows["trade_date"].to_numpy(), has_bar, limits)
    up, down = limit_price_arrays(rows["ref_close"].to_numpy(dtype="float64"), fraction)
    rows = rows.assign(limit_up=up, limit_down=down)
    close = rows.pivot(index="trade_date", columns="symbol", values="adj_close")
    close.index.name, close.columns.name = "trade_date", "symbol"

    def wide(column: str) -> pd.DataFrame:
        return rows.pivot(index="trade_date", columns="symbol", values=column).reindex_like(close)

    lacking = [s for s in close.columns if s not in markets]
    if lacking:
        raise BadRequestException(f"no market given for {lacking[:5]}")
    return TradingPanel(
        close=close,
        open=wide("adj_open"),
        raw_open=wide("open"),
        limit_up=wide("limit_up"),
        limit_down=wide("limit_down"),
        markets={s: str(markets[s]).upper() for s in close.columns},
        raw_close=wide("close"),
    )
