"""Ports of the whole-market screen: the panel of all symbols' data, and its figures.

A screen reads every stored symbol at once, so it loads one frame per table (bulk reads over the
data context's application interface) and computes across symbols, never symbol by symbol.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

import pandas as pd


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


class IScreenPanelPort(ABC):
    @abstractmethod
    def load(self, as_of: date, symbols: Sequence[str] | None = None) -> ScreenPanel:
        """Every stored symbol (or those of `symbols` the store holds), one read per table, only the
        windows the figures need, nothing after `as_of`."""


class IScreenFiguresBuilder(ABC):
    @abstractmethod
    def figures(self, panel: ScreenPanel) -> pd.DataFrame:
        """One row per symbol of `panel.securities` (in its order): the id columns, then the text
        columns and the fields of `dtos.screen` (floats, NaN where the snapshot says N/A)."""
