"""`stockdesk search QUERY`: one search through the configured providers (or one named provider)."""

from __future__ import annotations

from collections.abc import Callable

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from stockdesk.shared.dates import parse_day
from stockdesk.shared.errors import BadRequestException
from stockdesk.web_search.application.search_service import WebSearchService, newest_first
from stockdesk.web_search.domain.search import FRESHNESS_VALUES, MAX_COUNT, WebSearchRequest

console = Console()


def make_request(
    query: str, symbol: str | None, freshness: str, count: int, as_of: str | None, summary: bool
) -> WebSearchRequest:
    if freshness not in FRESHNESS_VALUES:
        raise BadRequestException(
            f"--freshness must be one of {', '.join(FRESHNESS_VALUES)} (got '{freshness}')",
            code="INVALID_FRESHNESS",
        )
    if not 1 <= count <= MAX_COUNT:
        raise BadRequestException(
            f"--count must be between 1 and {MAX_COUNT} (got {count})", code="INVALID_COUNT"
        )
    try:
        return WebSearchRequest(
            query=query,
            symbol=symbol or None,
            freshness=freshness,  # type: ignore[arg-type]
            count=count,
            as_of=parse_day(as_of),
            summary=summary,
        )
    except ValidationError as exc:
        raise BadRequestException(f"invalid search: {exc.errors()[0]['msg']}", code="INVALID_SEARCH") from exc


def build_search_command(get_service: Callable[[], WebSearchService]) -> Callable[..., None]:
    def search(
        query: str = typer.Argument(..., help='What to look for, e.g. "iPhone sales" or 茅台 提价.'),
        symbol: str | None = typer.Option(None, "--symbol", help="Only this stock's stored news (local)."),
        provider: str | None = typer.Option(
            None, "--provider", help="local | bocha | tavily | searxng; default: the configured order."
        ),
        freshness: str = typer.Option("noLimit", "--freshness", help=" | ".join(FRESHNESS_VALUES)),
        count: int = typer.Option(10, "--count", help=f"Results wanted, 1..{MAX_COUNT}."),
        as_of: str | None = typer.Option(
            None, "--as-of", help="YYYY-MM-DD: search as of this day; nothing published later."
        ),
        summary: bool = typer.Option(False, "--summary", help="Ask web providers for long summaries."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON only."),
    ) -> None:
        """Search stored news and filings (local) or the web; results newest first."""
        request = make_request(query, symbol, freshness, count, as_of, summary)
        response = get_service().search(request, provider=provider)
        response = response.model_copy(update={"items": newest_first(response.items)})
        if as_json:
            typer.echo(response.model_dump_json(indent=2))
            return
        for error in response.errors:
            console.print(f"[yellow]skipped[/] {error}")
        table = Table("published", "title", "site", "url", title=f"{response.provider}: {request.query}")
        for item in response.items:
            when = item.published_date.strftime("%Y-%m-%d %H:%M") if item.published_date else "undated"
            table.add_row(when, item.title, item.site_name, item.url)
        console.print(table)
        if not response.items:
            console.print("no results")

    return search
