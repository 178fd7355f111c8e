"""IModelMarketPort over data_engineering's application interface (securities list, bulk bars)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

import pandas as pd

from stockdesk.data_engineering.application import GetMarketFramesUseCase, ListSecuritiesUseCase
from stockdesk.research.domain.ports.model_market import Peer

BAR_COLUMNS = ["symbol", "trade_date", "open", "close", "pre_close", "volume", "adj_factor"]


class ModelMarketAdapter:
    def __init__(self, securities: ListSecuritiesUseCase, frames: GetMarketFramesUseCase):
        self._securities = securities
        self._frames = frames

    def peers(self, symbol: str) -> list[Peer]:
        stored = self._securities.execute()
        own = next((s for s in stored if s.symbol == symbol), None)
        if own is None:
            return []
        return [Peer(s.symbol, s.name, s.market) for s in stored if s.market == own.market]

    def bars(self, symbols: Sequence[str], start: date, end: date) -> pd.DataFrame:
        return self._frames.bars(list(symbols), start, end).reindex(columns=BAR_COLUMNS)
