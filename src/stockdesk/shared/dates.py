"""Dates typed by users (CLI options, query strings): one parser, one error code."""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Any, overload

from pydantic import BeforeValidator

from stockdesk.shared.errors import BadRequestException


@overload
def parse_day(value: str, field: str = "date") -> date: ...
@overload
def parse_day(value: None, field: str = "date") -> None: ...
def parse_day(value: str | None, field: str = "date") -> date | None:
    """`YYYY-MM-DD` -> date; None stays None; anything else is a 400 INVALID_DATE whose details name
    the `field` it came from."""
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise BadRequestException(
            f"'{value}' is not a date (YYYY-MM-DD)", code="INVALID_DATE", details={field: value}
        ) from exc


def _iso_only(value: Any) -> Any:
    """Dates as `YYYY-MM-DD` text (or date objects) only: no Unix timestamps or other lax forms."""
    if isinstance(value, date) or (isinstance(value, str) and _ISO_DAY.fullmatch(value)):
        return value
    raise ValueError("expected a date as YYYY-MM-DD")


_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
# What REST parameters and bodies take as a day: what the OpenAPI `format: date` promises.
IsoDay = Annotated[date, BeforeValidator(_iso_only)]


def years_before(day: date, years: int) -> date:
    """The same calendar day `years` years earlier; 29 February falls back to the 28th (pandas'
    `DateOffset(years=n)` rule, without building an offset object per call: the evaluation asks
    this once per point)."""
    try:
        return day.replace(year=day.year - years)
    except ValueError:  # 29 February in a year without one
        return day.replace(year=day.year - years, day=28)
