"""Reading numbers out of payloads that other contexts dumped (numbers, "N/A", text, None)."""

from __future__ import annotations

import math
from typing import Any


def finite_number(value: Any) -> float | None:
    """`value` as a float when it is a finite int or float (not a bool); anything else is None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)
