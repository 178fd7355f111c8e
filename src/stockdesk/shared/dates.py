"""Dates typed by users (CLI options, query strings): one parser, one error code."""

from __future__ import annotations

from datetime import date

from stockdesk.shared.errors import BadRequestException


def parse_day(value: str | None) -> date | None:
    """`YYYY-MM-DD` -> date; None stays None; anything else is a 400 INVALID_DATE."""
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise BadRequestException(f"'{value}' is not a date (YYYY-MM-DD)", code="INVALID_DATE") from exc
