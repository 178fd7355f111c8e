"""`stockdesk sessions` and `stockdesk report ID --out PATH`: stored sessions, listed and re-rendered.

A second format of a finished analysis costs no LLM call: the session holds everything.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from stockdesk.coordinator.application import ResearchCoordinatorService, SessionStatus
from stockdesk.coordinator.presentation.reports.render import check_out, report_language, write_report
from stockdesk.shared.dates import parse_day


def build_report_command(get_service: Callable[[], ResearchCoordinatorService]) -> Callable[..., None]:
    def report(
        session_id: str = typer.Argument(..., help="A session id (see `stockdesk sessions`)."),
        out: Path = typer.Option(
            ..., "--out", help="r.md, r.html, r.pdf, r.docx (Word) or r.json (the full session)."
        ),
        lang: str = typer.Option("en", "--lang", help="The report's language: en or zh."),
    ) -> None:
        """Re-render a stored session as Markdown, HTML, PDF, Word or JSON, without running anything again."""
        check_out(out)  # a bad suffix or language, or a PDF without Chromium, fails before any work
        report_language(lang)
        session = get_service().get(session_id.strip())
        written = write_report(session, out, lang=lang)
        typer.echo(f"report written to {written[0].resolve()}")

    return report


def build_sessions_command(get_service: Callable[[], ResearchCoordinatorService]) -> Callable[..., None]:
    def sessions(
        symbol: str | None = typer.Option(None, "--symbol", help="Only this symbol."),
        status: SessionStatus | None = typer.Option(None, "--status", help="Only sessions in this state."),
        since: str | None = typer.Option(None, "--since", help="Started on or after YYYY-MM-DD."),
        limit: int = typer.Option(20, "--limit", min=1, max=200, help="How many, newest first."),
        offset: int = typer.Option(0, "--offset", min=0, help="Skip this many (paging)."),
    ) -> None:
        """List research sessions, newest first."""
        page = get_service().list(
            symbol=symbol.strip().upper() if symbol else None,
            status=status.value if status else None,
            since=parse_day(since),
            offset=offset,
            limit=limit,
        )
        table = Table("symbol", "as of", "status", "verdict", "started", "time", "LLM calls")
        table.add_column("id", no_wrap=True, min_width=32)  # the handle `stockdesk report` takes
        for item in page.items:
            table.add_row(
                item.symbol,
                item.as_of.isoformat() if item.as_of else "latest",
                item.status.value,
                item.action or "-",
                item.started_at.strftime("%Y-%m-%d %H:%M"),
                f"{item.duration_seconds:.0f}s" if item.duration_seconds is not None else "-",
                str(item.llm_calls),
                item.id,
            )
        console = Console()
        if not console.is_terminal:  # piped: a fixed width that fits every column whole
            console = Console(width=150)
        console.print(table)
        shown = f"{offset + 1}-{offset + len(page.items)}" if page.items else "none"
        console.print(f"{shown} of {page.total} session(s)", highlight=False)

    return sessions
