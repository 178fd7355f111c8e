"""The portfolio view's market data through data_engineering's application interface: the store's
securities (market, industry, name) and daily bars cut at the as-of date (a plain class, as the
paper book's `PaperMarket`; the tests run it over a real store)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

import pandas as pd

from stockdesk.data_engineering.application import (
    GetMarketFramesUseCase,
    ListSecuritiesUseCase,
    SecurityDTO,
)

BAR_COLUMNS = ["symbol", "trade_date", "open", "close", "pre_close", "volume", "adj_factor"]


class PortfolioMarket:
    def __init__(self, securities: ListSecuritiesUseCase, frames: GetMarketFramesUseCase):
        self._securities = securities
        self._frames = frames

    def securities(self) -> dict[str, SecurityDTO]:
        return {s.symbol: s for s in self._securities.execute()}

    def bars(self, symbols: Sequence[str], start: date, as_of: date) -> pd.DataFrame:
        """Long frame of raw bars from `start` through `as_of`: nothing dated after `as_of`."""
        frame = self._frames.bars(list(symbols), start, as_of).reindex(columns=BAR_COLUMNS)
        days = pd.to_datetime(frame["trade_date"])
        return frame.loc[(days >= pd.Timestamp(start)) & (days <= pd.Timestamp(as_of))].reset_index(drop=True)
