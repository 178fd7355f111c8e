"""Form text as the lab pages read it: lists typed with commas, times shown, refused values named.

A form is validated by the REST body it stands for; `refused` turns that body's first validation
error into the 400 the page shows, naming the field as the REST API would.
"""

from __future__ import annotations

import re
from datetime import datetime

from pydantic import ValidationError

from stockdesk.shared.errors import BadRequestException

SEPARATORS = re.compile(r"[\s,，;；]+")


def split_list(text: str) -> list[str]:
    """`600001.SH, 000002.SZ` (commas, spaces or Chinese commas) -> the items."""
    return [part for part in SEPARATORS.split(text.strip()) if part]


def stamp(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else ""


def refused(exc: ValidationError) -> BadRequestException:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "form"
    return BadRequestException(f"{where}: {first['msg']}", code="BAD_REQUEST")
