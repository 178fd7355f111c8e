"""Symbol lists from files (`--universe FILE`): plain lists, or a CSV with a `symbol` column.

A screen's CSV output (`stockdesk screen --out s.csv`) is a valid universe, so its matches feed
`batch analyze` and `evaluate` directly.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from stockdesk.shared.errors import BadRequestException


def read_universe(path: Path) -> list[str]:
    """The symbols a file names, in order, without duplicates; one-line errors otherwise.

    A first line with a `symbol` column header means CSV (that column is read); otherwise one
    symbol per line or comma separated, with blank lines and `#` comments skipped.
    """
    if not path.is_file():
        raise BadRequestException(f"--universe: no such file {path}", code="BAD_UNIVERSE")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadRequestException(f"--universe: cannot read {path}: {exc}", code="BAD_UNIVERSE") from exc
    lines = text.splitlines()
    header = [cell.strip().lower() for cell in lines[0].split(",")] if lines else []
    if "symbol" in header:
        rows = csv.DictReader(io.StringIO(text))
        rows.fieldnames = [name.strip().lower() for name in rows.fieldnames or []]
        symbols = [(row.get("symbol") or "").strip() for row in rows]
    else:
        symbols = [
            part.strip() for line in lines for part in line.split("#", 1)[0].split(",") if part.strip()
        ]
    symbols = list(dict.fromkeys(s for s in symbols if s))
    if not symbols:
        raise BadRequestException(f"--universe: {path} names no symbol", code="BAD_UNIVERSE")
    return symbols
