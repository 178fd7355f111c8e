"""Small conversions every score shares: float arrays, action labels, dates, optional figures."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pandas as pd

ACTIONS: tuple[str, ...] = ("BUY", "SELL", "HOLD")


def float_array(values: Any) -> np.ndarray:
    """`values` as a 1-D float array (None and text become NaN), so masks and sums need no special cases."""
    try:
        return np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        series = pd.Series(np.asarray(values, dtype=object).ravel())
        return pd.to_numeric(series, errors="coerce").to_numpy(dtype=float)


def folded_labels(values: Iterable[Any], fold: Callable[[str], str]) -> np.ndarray:
    """`fold(str(value.value or value).strip())` of each value, as an object array; each distinct
    value is folded once (100,000 labels are a handful of distinct ones)."""
    items = values if isinstance(values, (pd.Series, np.ndarray, list, tuple)) else list(values)
    codes, uniques = pd.factorize(
        pd.Series(np.asarray(items, dtype=object).ravel(), dtype=object), use_na_sentinel=False
    )
    folded = np.array([fold(str(getattr(u, "value", u)).strip()) for u in uniques], dtype=object)
    return folded[codes] if len(codes) else np.array([], dtype=object)


def action_array(actions: Iterable[Any]) -> np.ndarray:
    """Action labels upper-cased ("buy", Action.BUY and "BUY" are one action); unknown labels raise."""
    labels = folded_labels(actions, str.upper)
    unknown = sorted(set(labels) - set(ACTIONS))
    if unknown:
        raise ValueError(f"unknown actions {unknown}; expected one of {ACTIONS}")
    return labels


def date_array(dates: Any) -> np.ndarray:
    """Dates (date, Timestamp or ISO text) as datetime64[ns], so every spelling of a day groups together."""
    return np.asarray(pd.to_datetime(pd.Series(np.asarray(dates, dtype=object).ravel())), "datetime64[ns]")


def optional(value: Any) -> float | None:
    """A finite float, or None: the DTOs never carry NaN or inf."""
    if value is None:
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def share(flags: np.ndarray) -> float | None:
    """Mean of a boolean array, None when it is empty (a rate of nothing is unknown, not 0)."""
    return float(np.mean(flags)) if len(flags) else None


def mean_or_none(values: np.ndarray) -> float | None:
    """Mean of the finite entries, None when there are none."""
    finite = values[np.isfinite(values)]
    return float(np.mean(finite)) if len(finite) else None


def median_or_none(values: np.ndarray) -> float | None:
    """Median of the finite entries, None when there are none."""
    finite = values[np.isfinite(values)]
    return float(np.median(finite)) if len(finite) else None
