"""Port of the factor library: raw factor values of many symbols at many dates, one read per table."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Protocol

import pandas as pd


class IFactorPanelBuilder(Protocol):
    def factors(self, symbols: Sequence[str], dates: Sequence[date]) -> pd.DataFrame:
        """Long frame: date (Timestamp), symbol, market, then every factor of `FACTOR_NAMES` as of
        that date (NaN where its inputs are missing); symbols the store does not hold are left out."""
        ...
