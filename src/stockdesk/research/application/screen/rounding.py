"""The snapshots' rounding over arrays: `round_half_up` elementwise, sanity bounds, NaN for N/A.

`shared.finance.round_half_up` rounds the shortest decimal form of a float (2.675 -> 2.68, where
the binary value lies just below). Floats are rounded here in numpy; the few that lie within float
error of a half, where the binary value and its decimal form may round apart, go through the
scalar definition itself, so every result is the one the snapshot shows.
"""

from __future__ import annotations

import logging

import numpy as np

from stockdesk.research.application.snapshot.valuation_snapshot_builder import BOUNDS
from stockdesk.shared.finance import round_half_up

logger = logging.getLogger(__name__)
_NEAR_HALF = 1e-9  # absolute, for small magnitudes; float error stays far below it
_RELATIVE = 1e-15  # about 4 ulp: the decimal form and the product each err by half of one


def rounded(values: np.ndarray, digits: int = 2) -> np.ndarray:
    """round_half_up(value, digits) per element; NaN where the value is not finite (the builders'
    N/A). A rounded r / 10^digits is the float nearest the decimal, as float(Decimal) gives it."""
    values = np.asarray(values, dtype="float64")
    scale = 10.0**digits
    finite = np.isfinite(values)
    with np.errstate(invalid="ignore"):
        scaled = np.abs(values) * scale
        fraction = scaled - np.floor(scaled)
        near = finite & (np.abs(fraction - 0.5) <= _NEAR_HALF + scaled * _RELATIVE)
        out = np.where(finite, np.copysign(np.floor(scaled + 0.5), values) / scale, np.nan)
    if near.any():
        out[near] = [round_half_up(float(v), digits) for v in values[near]]
    return out


def bounded(field: str, values: np.ndarray, digits: int = 2) -> np.ndarray:
    """The valuation builder's `bounded`: NaN when missing or outside (low, high], else rounded."""
    low, high = BOUNDS[field]
    values = np.asarray(values, dtype="float64")
    with np.errstate(invalid="ignore"):
        inside = (values > low) & (values <= high)
    outside = int(np.count_nonzero(~inside & ~np.isnan(values)))
    if outside:
        logger.info("screen: %d values of %s out of range (%s, %s] -> empty", outside, field, low, high)
    return np.where(inside, rounded(values, digits), np.nan)
