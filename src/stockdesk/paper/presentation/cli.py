"""`stockdesk paper ...`: open a book, step it, replay a past period, show it, list and close books.

Errors are one line with exit code 2 (the CLI's StockdeskError handling). `replay` shows progress on
stderr and can be stopped with Ctrl-C: every finished day is stored, so the book stays consistent at
the last completed day and a later `replay` or `step` goes on from there.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from stockdesk.paper.application import BookView, DayResult, PaperService
from stockdesk.paper.presentation.report import check_out, figure_lines, write_book
from stockdesk.shared.dates import parse_day


def _day(value: str | None, field: str) -> date | None:
    return parse_day(value, field) if value else None


def build_paper_cli(get_service: Callable[[], PaperService]) -> typer.Typer:
    app = typer.Typer(help="Paper books: follow the daily rules verdicts with simulated money.")
    err = Console(stderr=True, highlight=False)

    @app.command("open")
    def open_book(
        name: str = typer.Argument(..., help="The book's name (letters, digits, . _ -)."),
        capital: float = typer.Option(
            1_000_000.0, "--capital", help="Starting cash, in the market's currency."
        ),
        market: str = typer.Option("CN", "--market", help="CN or US."),
        symbols: str = typer.Option("", "--symbols", help="The universe, comma-separated (A,B,C)."),
        watchlist: str | None = typer.Option(
            None, "--watchlist", help="Or a watchlist: the book takes its symbols as they are now."
        ),
        benchmark: str | None = typer.Option(
            None, "--benchmark", help="A stored symbol (default: the equal-weight universe)."
        ),
        max_weight: float | None = typer.Option(None, "--max-weight", help="Cap per name, a fraction (0.2)."),
    ) -> None:
        """Open a book over `--symbols` or a `--watchlist` (one of the two)."""
        listed = [s for s in symbols.split(",") if s.strip()]
        book = get_service().open(
            name, market=market, capital=capital, symbols=listed,
            benchmark=benchmark.strip().upper() if benchmark else None, max_weight=max_weight,
            watchlist=watchlist,
        )  # fmt: skip
        typer.echo(
            f"paper book {book.name} opened: {book.market}, {book.capital:,.2f}, {len(book.symbols)} symbols"
        )

    @app.command("step")
    def step(
        name: str = typer.Argument(...),
        as_of: str | None = typer.Option(
            None, "--as-of", help="YYYY-MM-DD (default: the store's latest day)."
        ),
    ) -> None:
        """Step the book through `--as-of` (every trading day since its last one); twice changes nothing."""
        done = get_service().step(name, _day(as_of, "as_of"), on_day=_progress(err))
        if not done:
            typer.echo(f"paper book {name}: nothing to step (already at that day)")
        for result in done[-1:]:
            typer.echo(f"paper book {name} at {result.day}: equity {result.mark.equity:,.2f}")

    @app.command("replay")
    def replay(
        name: str = typer.Argument(...),
        start: str = typer.Option(..., "--from", help="First day, YYYY-MM-DD."),
        end: str = typer.Option(..., "--to", help="Last day, YYYY-MM-DD."),
    ) -> None:
        """Step each trading day from --from to --to, as the live steps would have; print the figures."""
        service = get_service()
        first, last = parse_day(start, "from"), parse_day(end, "to")
        try:
            service.replay(name, first, last, on_day=_progress(err))
        except KeyboardInterrupt:
            book = service.get(name)
            err.print(f"stopped: book {name} is complete through {book.last_day}")
            raise typer.Exit(130) from None
        for line in figure_lines(service.show(name).figures):
            typer.echo(line)

    _reading_commands(app, get_service, err)
    return app


def _reading_commands(app: typer.Typer, get_service: Callable[[], PaperService], err: Console) -> None:
    """show, list, close."""

    @app.command("show")
    def show(
        name: str = typer.Argument(...),
        as_of: str | None = typer.Option(None, "--as-of", help="YYYY-MM-DD (default: the last stepped day)."),
        as_json: bool = typer.Option(False, "--json", help="Print the JSON (the contract)."),
        out: Path | None = typer.Option(None, "--out", help="book.json, book.html or book.pdf."),
    ) -> None:
        """Positions, trades, the equity curve's figures; --out writes the report with its chart."""
        if out is not None:
            check_out(out)
        view = get_service().show(name, _day(as_of, "as_of"))
        if as_json:
            typer.echo(view.model_dump_json(indent=2))
        else:
            _print_view(view)
        if out is not None:
            written = write_book(view, out)
            err.print(f"paper book written to {written.resolve()}")

    @app.command("list")
    def list_books() -> None:
        """Every book: market, capital, the days stepped, open or closed."""
        books = get_service().list()
        if not books:
            typer.echo("no paper books")
        for b in books:
            span = f"{b.first_day}..{b.last_day}" if b.last_day else "not stepped"
            state = "closed" if b.closed else "open"
            typer.echo(f"{b.name}\t{b.market}\t{b.capital:,.2f}\t{len(b.symbols)} symbols\t{span}\t{state}")

    @app.command("close")
    def close(name: str = typer.Argument(...)) -> None:
        """Close a book: no more steps; its history stays."""
        get_service().close(name)
        typer.echo(f"paper book {name} closed")


def _progress(err: Console) -> Callable[[DayResult, int, int], None]:
    def report(result: DayResult, count: int, total: int) -> None:
        filled = sum(1 for t in result.trades if t.filled)
        err.print(f"[{count}/{total}] {result.day}: equity {result.mark.equity:,.2f}, {filled} trades")

    return report


def _print_view(view: BookView) -> None:
    book = view.book
    screen = Console() if Console().is_terminal else Console(width=120)
    screen.print(f"paper book {book.name} ({book.market}) as of {view.as_of or '-'}", highlight=False)
    for line in figure_lines(view.figures):
        screen.print(f"  {line}", highlight=False)
    positions = Table(
        "symbol", "quantity (shares)", "cost / share", "bought on", "close", "value", title="positions"
    )
    for p in view.positions:
        price = "-" if p.price is None else f"{p.price:,.2f}"
        value = "-" if p.price is None else f"{p.value:,.2f}"  # --as-of an earlier day: its mark has it
        positions.add_row(p.symbol, f"{p.quantity:,.0f}", f"{p.cost:,.4f}", str(p.bought_on), price, value)
    screen.print(positions)
    trades = Table(
        "date", "symbol", "side", "quantity (shares)", "price", "costs", "reason", title="last 20 trades"
    )
    for t in view.trades[-20:]:
        price = "-" if t.price is None else f"{t.price:,.2f}"
        trades.add_row(str(t.day), t.symbol, t.side, f"{t.quantity:,.0f}", price, f"{t.costs:,.2f}", t.reason)
    screen.print(trades)
