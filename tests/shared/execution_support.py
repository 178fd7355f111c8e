"""Small hand-made panels for the execution engine's tests (close and open execution alike)."""

from __future__ import annotations

import pandas as pd

DAYS = pd.bdate_range("2024-01-01", periods=30)
NAN = float("nan")


def frame(**columns: list[float]) -> pd.DataFrame:
    """Dates x symbols from per-symbol lists, on the first len(list) of DAYS."""
    length = len(next(iter(columns.values())))
    return pd.DataFrame(columns, index=DAYS[:length], dtype="float64")


def targets(rows: dict[int, dict[str, float]]) -> pd.DataFrame:
    """Decision-day position -> weights."""
    return pd.DataFrame.from_dict({DAYS[day]: weights for day, weights in rows.items()}, orient="index")


def rates(**values: float) -> pd.Series:
    return pd.Series(values, dtype="float64")
