"""ScreenFiguresBuilder: the valuation, technical and financial figures of every symbol of a panel."""

from __future__ import annotations

import pandas as pd

from stockdesk.research.application.screen.panel import ScreenPanel
from stockdesk.research.application.screen.report_figures import (
    FIGURES,
    financial_figures,
    valuation_report_figures,
)
from stockdesk.research.application.screen.report_panel import visible_periods
from stockdesk.research.application.screen.technical_figures import technical_figures
from stockdesk.research.application.screen.valuation_figures import valuation_figures
from stockdesk.research.domain.dtos.screen import OUTPUT_COLUMNS


class ScreenFiguresBuilder:
    def figures(self, panel: ScreenPanel) -> pd.DataFrame:
        """One row per symbol of `panel.securities` (in its order): the id columns, then the text
        columns and the fields of `dtos.screen` (floats, NaN where the snapshot says N/A)."""
        securities = panel.securities.reset_index(drop=True)
        symbols = pd.Index(securities["symbol"])
        valuation = valuation_figures(panel.valuations, symbols, panel.as_of)
        periods = visible_periods(panel.financials, symbols, panel.as_of, FIGURES)
        from_reports = valuation_report_figures(
            periods,
            valuation["_pe_raw"].to_numpy(),
            valuation["pe_ttm"].to_numpy(),
            valuation["_price"].to_numpy(),
        )
        parts = [
            valuation.reset_index(drop=True),
            pd.DataFrame(from_reports),
            technical_figures(panel.bars, symbols, panel.as_of).reset_index(drop=True),
            pd.DataFrame(financial_figures(periods)),
        ]
        frame = pd.concat([securities, *parts], axis=1)
        return frame[list(OUTPUT_COLUMNS)]
