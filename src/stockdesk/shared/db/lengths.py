"""Cutting audit text to its column's declared length.

SQLite stores a string of any length in a String(n) column; PostgreSQL refuses the whole row. Audit
rows carry text a model or provider chose (a hallucinated tool name, a provider's call id), and an
audit that fails is lost: such text is shortened to fit, marked with a trailing ellipsis.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import String


def fit_lengths(model: type, values: dict[str, Any]) -> dict[str, Any]:
    """`values` for the ORM `model`, every string longer than its String(n) column cut to n characters."""
    columns = model.__table__.c  # type: ignore[attr-defined]
    fitted = dict(values)
    for name, value in values.items():
        column = columns.get(name)
        if column is None or not isinstance(value, str) or not isinstance(column.type, String):
            continue
        length = column.type.length
        if length and len(value) > length:
            fitted[name] = value[: length - 1] + "…"
    return fitted
