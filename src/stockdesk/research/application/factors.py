"""The factor library's application face: raw factors per (symbol, date) and their per-date ranks.

Raw values come from `FactorPanelBuilder` (point in time by construction). `rank_normalise`
turns each factor into its cross-sectional rank on each date, scaled to [-0.5, 0.5] over the
symbols that have it (ties share their mean rank; a lone symbol sits at 0). A missing raw value
stays missing: the model reads it as "no information" (contributes nothing), never as a value.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

import numpy as np
import pandas as pd

from stockdesk.research.application.screen.factor_panel import FactorPanelBuilder
from stockdesk.research.domain.dtos.factors import FACTOR_BY_NAME, FACTOR_NAMES, FACTORS, Factor

__all__ = ["FACTORS", "FACTOR_BY_NAME", "FACTOR_NAMES", "Factor", "FactorService", "rank_normalise"]


def rank_normalise(frame: pd.DataFrame, names: Sequence[str], by: str = "date") -> pd.DataFrame:
    """`frame` with each of `names` replaced by its per-`by` rank in [-0.5, 0.5] (NaN kept)."""
    out = frame.copy()
    groups = frame.groupby(by, sort=False)
    for name in names:
        ranks = groups[name].rank(method="average")
        counts = groups[name].transform("count")
        with np.errstate(divide="ignore", invalid="ignore"):
            scaled = np.where(counts > 1, (ranks - 1) / (counts - 1) - 0.5, 0.0)
        out[name] = np.where(frame[name].notna(), scaled, np.nan)
    return out


class FactorService:
    def __init__(self, builder: FactorPanelBuilder):
        self._builder = builder

    def raw(self, symbols: Sequence[str], dates: Sequence[date]) -> pd.DataFrame:
        return self._builder.factors(symbols, dates)

    def ranked(self, symbols: Sequence[str], dates: Sequence[date]) -> pd.DataFrame:
        """date, symbol, market and every factor rank-normalised per date."""
        return rank_normalise(self._builder.factors(symbols, dates), FACTOR_NAMES)
