"""`stockdesk watch add|remove|list` and `stockdesk holdings import|set|remove|list`.

Errors are the services' (one line, exit 2 for what the user can fix); every command can be rerun
with the same outcome (adding a symbol a list has, importing the same file again)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from stockdesk.portfolio.application import (
    DEFAULT_ACCOUNT,
    HELD_FIGURES,
    HeldPosition,
    HoldingsService,
    WatchlistService,
)
from stockdesk.shared.dates import parse_day
from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.figures import format_figure

console = Console(soft_wrap=True)
MAX_FILE_BYTES = 10 * 1024 * 1024


def build_watch_cli(get_service: Callable[[], WatchlistService]) -> typer.Typer:
    app = typer.Typer(help="Named watchlists of stored symbols.", no_args_is_help=True)

    @app.command("add")
    def add(
        name: str = typer.Argument(..., help="The list's name (created if missing)."),
        symbols: list[str] = typer.Argument(..., help="Codes or names of stored securities."),
    ) -> None:
        """Add symbols to a list (a symbol already there stays where it is)."""
        found = get_service().add(name, symbols)
        console.print(f"{found.name}: {' '.join(found.symbols)}", highlight=False)

    @app.command("remove")
    def remove(
        name: str = typer.Argument(...),
        symbols: list[str] | None = typer.Argument(None, help="None: delete the whole list."),
    ) -> None:
        """Remove symbols from a list, or the list itself."""
        found = get_service().remove(name, symbols or None)
        console.print(
            f"{name}: deleted" if found is None else f"{found.name}: {' '.join(found.symbols)}",
            highlight=False,
        )

    @app.command("list")
    def show(
        name: str | None = typer.Argument(None, help="One list (default: all)."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    ) -> None:
        """The lists and their symbols."""
        service = get_service()
        lists = [service.get(name)] if name else service.lists()
        if as_json:
            print(json.dumps([w.model_dump(mode="json") for w in lists], ensure_ascii=False, indent=2))
            return
        if not lists:
            console.print("no watchlists (stockdesk watch add NAME SYMBOLS...)")
        for found in lists:
            console.print(f"{found.name} ({len(found.symbols)}): {' '.join(found.symbols)}", highlight=False)

    return app


def holdings_table(rows: list[HeldPosition], as_of: date) -> Table:
    table = Table(title=f"holdings valued at the close known on {as_of.isoformat()}")
    for column in ("account", "symbol", *HELD_FIGURES, "close date", "days held"):
        table.add_column(
            column.replace("_", " "), justify="left" if column in ("account", "symbol") else "right"
        )
    for row in rows:
        table.add_row(
            row.account,
            row.symbol,
            *(format_figure(key, getattr(row, key)) for key in HELD_FIGURES),
            row.close_date.isoformat() if row.close_date else "—",
            format_figure("days_held", row.days_held),
        )
    return table


def build_holdings_cli(get_service: Callable[[], HoldingsService]) -> typer.Typer:
    app = typer.Typer(help="Positions with their cost basis, valued point in time.", no_args_is_help=True)

    @app.command("import")
    def import_file(
        file: Path = typer.Argument(
            ..., help="A holdings file (generic CSV, 同花顺, 通达信 or Fidelity export)."
        ),
        account: str | None = typer.Option(
            None, "--account", help="The account of every row (default: the file's, else 'default')."
        ),
        replace: bool = typer.Option(
            False, "--replace", help="Replace the account's positions with the file's."
        ),
    ) -> None:
        """Import a positions file: all of it, or nothing (the first bad line is the error)."""
        if not file.is_file():
            raise BadRequestException(
                f"{file}: no such file", code="HOLDINGS_FILE_INVALID", details={"line": None}
            )
        if file.stat().st_size > MAX_FILE_BYTES:
            raise BadRequestException(
                f"{file}: larger than 10 MB", code="HOLDINGS_FILE_INVALID", details={"line": None}
            )
        result = get_service().import_file(file.read_bytes(), account, replace)
        verb = "replaced with" if replace else "imported"
        console.print(
            f"{result.layout} layout: {verb} {result.positions} positions in {', '.join(result.accounts)}",
            highlight=False,
        )

    @app.command("set")
    def set_position(
        symbol: str = typer.Argument(...),
        quantity: float = typer.Option(..., "--quantity", help="Shares held."),
        cost: float = typer.Option(..., "--cost", help="Average cost a share, in the listing currency."),
        account: str = typer.Option(DEFAULT_ACCOUNT, "--account"),
        opened: str | None = typer.Option(None, "--opened", help="YYYY-MM-DD the position was opened."),
    ) -> None:
        """Set one position (replacing what the account held of it)."""
        found = get_service().set(symbol, quantity, cost, account, parse_day(opened, "opened"))
        console.print(
            f"{found.account}: {found.symbol} {found.quantity:g} @ {found.cost_price:g}", highlight=False
        )

    @app.command("remove")
    def remove(
        symbol: str = typer.Argument(...), account: str = typer.Option(DEFAULT_ACCOUNT, "--account")
    ) -> None:
        """Remove one position."""
        get_service().remove(symbol, account)
        console.print(f"{account}: {symbol} removed", highlight=False)

    @app.command("list")
    def show(
        as_of: str | None = typer.Option(None, "--as-of", help="YYYY-MM-DD; default today."),
        account: str | None = typer.Option(None, "--account", help="One account (default: all)."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    ) -> None:
        """The positions valued at the last close known on the date (the store's bars up to it only)."""
        day = parse_day(as_of, "as_of") or date.today()
        rows = get_service().positions(day, account)
        if as_json:
            print(json.dumps([r.model_dump(mode="json") for r in rows], ensure_ascii=False, indent=2))
            return
        if not rows:
            console.print("no holdings (stockdesk holdings import FILE, or holdings set)")
            return
        console.print(holdings_table(rows, day))

    return app
