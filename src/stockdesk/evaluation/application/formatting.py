"""How the evaluation's figures read in words, tables and pages: one formatter for each kind."""

from __future__ import annotations

DASH = "–"


def pct(value: float | None, digits: int = 1, missing: str = DASH) -> str:
    """A fraction as a percentage (0.123 -> 12.3%); `missing` for a figure that could not be computed."""
    return missing if value is None else f"{value * 100:.{digits}f}%"


def num(value: float | None, digits: int = 3, missing: str = DASH) -> str:
    return missing if value is None else f"{value:.{digits}f}"


def times(value: float | None, digits: int = 2, missing: str = DASH) -> str:
    """A multiple (a book's yearly turnover: 2.10× is the book traded twice over)."""
    return missing if value is None else f"{value:.{digits}f}×"
