"""Numbers a worker or refiner may write: only those its inputs hold (shared claims' extractor).

Rounding, percentage/fraction forms and thousand separators are normalised by
`shared.claims`; dates, years and small counts are not data claims and are not checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stockdesk.shared.claims import is_grounded, numbers_in_text, snapshot_numbers


def known_numbers(*inputs: Any) -> list[float]:
    """Every number in the inputs (nested dicts/lists, and numbers written inside strings)."""
    return snapshot_numbers(list(inputs))


def new_numbers(text: str, known: Sequence[float]) -> list[str]:
    """The numbers `text` writes that none of `known` gives (each once, in order)."""
    found: list[str] = []
    for token in numbers_in_text(text):
        if not is_grounded(token, known) and token not in found:
            found.append(token)
    return found
