"""The whole-market screen: every stored symbol's snapshot figures as of a date, filtered and sorted.

Input is checked before anything is read (expression, sort field, limit); then one panel load,
one pass of the figures across all symbols and one vectorised mask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

import numpy as np
import pandas as pd

from stockdesk.research.application.screen.expression import Filter, parse_filter
from stockdesk.research.application.screen.figures_builder import ScreenFiguresBuilder
from stockdesk.research.application.screen.panel import ScreenPanelReader
from stockdesk.research.domain.dtos.screen import FIELD_NAMES, OUTPUT_COLUMNS
from stockdesk.shared.errors import BadRequestException


@dataclass(frozen=True)
class ScreenRequest:
    as_of: date
    where: str | None = None
    universe: Sequence[str] | None = None
    """None: every stored symbol"""
    sort: str = "symbol"
    """a column name; a leading '-' sorts descending (missing values last either way)"""
    limit: int | None = None


@dataclass(frozen=True)
class ScreenResult:
    as_of: date
    rows: pd.DataFrame
    """the matches (at most `limit`), sorted, in OUTPUT_COLUMNS"""
    matched: int
    screened: int
    unknown: tuple[str, ...]
    """symbols of the universe the store does not hold"""
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)
    """min and max over every screened symbol of each field the filter reads (NaN ignored): what a
    filter matching nothing is told, e.g. that `roe` is year to date and tops out at 4.46 here"""


def sort_key(text: str) -> tuple[str, bool]:
    """(column, descending) of a `--sort` value; one-line error for an unknown column."""
    column = text.strip().removeprefix("-").strip()
    if column not in OUTPUT_COLUMNS:
        raise BadRequestException(
            f"--sort: unknown column '{column}'; known: {', '.join(OUTPUT_COLUMNS)}", code="UNKNOWN_FIELD"
        )
    return column, text.strip().startswith("-")


class ScreenService:
    def __init__(self, panel: ScreenPanelReader, figures: ScreenFiguresBuilder):
        self._panel = panel
        self._figures = figures

    def screen(self, request: ScreenRequest) -> ScreenResult:
        condition: Filter | None = parse_filter(request.where, FIELD_NAMES) if request.where else None
        column, descending = sort_key(request.sort)
        if request.limit is not None and request.limit < 1:
            raise BadRequestException(f"--limit must be at least 1, not {request.limit}", code="BAD_LIMIT")
        if request.universe is not None and not request.universe:
            raise BadRequestException("the universe names no symbol", code="BAD_UNIVERSE")
        panel = self._panel.load(request.as_of, request.universe)
        if panel.securities.empty:
            if request.universe is None:
                raise BadRequestException(
                    "the store holds no securities: run `stockdesk data load-sample` first",
                    code="EMPTY_STORE",
                )
            shown = ", ".join(panel.unknown[:5]) + (" ..." if len(panel.unknown) > 5 else "")
            raise BadRequestException(
                f"no symbol of the universe is in the store: {shown}", code="BAD_UNIVERSE"
            )
        figures = self._figures.figures(panel)
        mask = condition.mask(figures) if condition else np.ones(len(figures), dtype=bool)
        rows = figures[mask].sort_values(column, ascending=not descending, na_position="last", kind="stable")
        if request.limit is not None:
            rows = rows.head(request.limit)
        return ScreenResult(
            as_of=request.as_of,
            rows=rows.reset_index(drop=True),
            matched=int(mask.sum()),
            screened=len(figures),
            unknown=panel.unknown,
            ranges={
                name: (float(figures[name].min()), float(figures[name].max()))
                for name in (condition.fields if condition else ())
                if figures[name].notna().any()
            },
        )
