"""`stockdesk screen`: every stored symbol's snapshot figures as of a date, filtered by `--where`.

Writes the matches as CSV (symbol, name, market, then the fields; empty where the snapshot says
N/A) through a temp file and a rename, prints a table of the first rows and "N of M symbols matched".
The CSV is a valid `--universe` file for `batch analyze` and for the screen itself.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import typer
from rich.console import Console
from rich.table import Table

from stockdesk.research.application.screen.expression import parse_filter
from stockdesk.research.application.screen.service import ScreenRequest, ScreenResult, ScreenService, sort_key
from stockdesk.research.domain.dtos.screen import FIELD_NAMES, SCREEN_FIELDS
from stockdesk.shared.dates import parse_day
from stockdesk.shared.files import write_atomic
from stockdesk.shared.universe import read_universe

console = Console()
SHOWN_ROWS = 20
DEFAULT_SHOWN = ("close", "pe_ttm", "pb", "pe_percentile", "roe", "revenue_yoy", "ma20", "ma60")
MAX_SHOWN_FIELDS = 8
WHOLE = [f.name for f in SCREEN_FIELDS if f.whole]
WHERE_HELP = 'e.g. "pe_pct < 0.2 and roe > 15 and ma20 > ma60" (fields: see README, section Screen)'


def csv_text(rows: pd.DataFrame) -> str:
    """The rows as CSV: counts and percentiles as integers, missing figures empty."""
    return rows.astype({name: "Int64" for name in WHOLE}).to_csv(index=False)


def json_rows(rows: pd.DataFrame) -> list[dict[str, Any]]:
    """Records with null for missing figures (and integers for counts and percentiles)."""
    out = []
    for record in rows.to_dict(orient="records"):
        clean = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in record.items()}
        out.append({k: (int(v) if k in WHOLE and v is not None else v) for k, v in clean.items()})
    return out


def shown_fields(where: str | None, sort: str) -> list[str]:
    """What the table shows: the sort field and the fields the expression names, then defaults."""
    named = list(parse_filter(where, FIELD_NAMES).fields) if where else []
    column = sort_key(sort)[0]
    picked = [c for c in dict.fromkeys([column, *named, *DEFAULT_SHOWN]) if c in FIELD_NAMES]
    return picked[:MAX_SHOWN_FIELDS]


def cell(value: Any, whole: bool) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return str(int(value)) if whole else str(value)


def print_table(result: ScreenResult, fields: list[str]) -> None:
    table = Table("symbol", "name", *fields, title=f"screen as of {result.as_of}")
    for row in result.rows.head(SHOWN_ROWS).itertuples(index=False):
        values = row._asdict()
        table.add_row(values["symbol"], str(values["name"]), *(cell(values[f], f in WHOLE) for f in fields))
    console.print(table)
    more = len(result.rows) - SHOWN_ROWS
    if more > 0:
        console.print(f"... and {more} more rows", highlight=False)


def build_screen_command(get_service: Callable[[], ScreenService]) -> Callable[..., None]:
    def screen(
        universe: str = typer.Option(
            "all",
            "--universe",
            help="all, or a file of symbols: one per line, or a CSV with a symbol column.",
        ),
        as_of: str | None = typer.Option(None, "--as-of", help="YYYY-MM-DD; default today."),
        where: str | None = typer.Option(None, "--where", help=WHERE_HELP),
        out: Path | None = typer.Option(None, "--out", help="CSV file to write the matches to."),
        sort: str = typer.Option(
            "symbol", "--sort", help="Column to sort by; a leading '-' sorts descending (--sort=-roe)."
        ),
        limit: int | None = typer.Option(None, "--limit", help="Keep the first N matches after sorting."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON only."),
    ) -> None:
        """Screen every stored symbol (or a universe file) on its snapshot figures as of a date."""
        day: date = parse_day(as_of) or date.today()
        symbols = None if universe.strip().lower() == "all" else read_universe(Path(universe))
        fields = shown_fields(where, sort)  # checks the expression before any read
        result = get_service().screen(
            ScreenRequest(as_of=day, where=where, universe=symbols, sort=sort, limit=limit)
        )
        if out is not None:
            write_atomic(out, csv_text(result.rows))
        summary = f"{result.matched} of {result.screened} symbols matched"
        if as_json:
            payload = {
                "as_of": day.isoformat(),
                "matched": result.matched,
                "screened": result.screened,
                "unknown": list(result.unknown),
                "rows": json_rows(result.rows),
            }
            typer.echo(json.dumps(payload, ensure_ascii=False))
            return
        if result.unknown:
            shown = ", ".join(result.unknown[:10]) + (" ..." if len(result.unknown) > 10 else "")
            console.print(f"[yellow]not in the store, skipped:[/] {shown}", highlight=False)
        if len(result.rows):
            print_table(result, fields)
        elif result.ranges:  # nothing matched: show where the filter's fields lie, to adjust it
            spans = ", ".join(f"{name} {low:g} to {high:g}" for name, (low, high) in result.ranges.items())
            summary += f" (among them: {spans})"
        console.print(summary + (f"; written to {out}" if out is not None else ""), highlight=False)

    return screen
