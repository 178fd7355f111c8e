"""`stockdesk research ...`: run one expert, or print its snapshot without calling the model."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date

import typer
from rich.console import Console
from rich.panel import Panel

from stockdesk.research.container import ResearchContainer
from stockdesk.shared.errors import BadRequestException

console = Console()


def parse_day(value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise BadRequestException(f"'{value}' is not a date (YYYY-MM-DD)", code="INVALID_DATE") from exc


def build_research_cli(get_container: Callable[[], ResearchContainer]) -> typer.Typer:
    app = typer.Typer(help="Research experts: numbers in code, judgement from the LLM.", no_args_is_help=True)

    @app.command("valuation")
    def valuation(
        symbol: str = typer.Argument(..., help="e.g. 600519.SH, 000338.SZ"),
        as_of: str | None = typer.Option(None, "--as-of", help="YYYY-MM-DD; default today."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON only."),
        snapshot_only: bool = typer.Option(False, "--snapshot-only", help="Numbers only; no LLM call."),
    ) -> None:
        """Valuation modeler: percentiles, PEG, Graham number -> Undervalued / Fair / Overvalued."""
        service = get_container().valuation_modeler
        day = parse_day(as_of)
        if snapshot_only:
            snapshot = service.build_snapshot(symbol, day).model_dump(mode="json")
            if as_json:
                typer.echo(json.dumps(snapshot, ensure_ascii=False, indent=2))
            else:
                console.print_json(json.dumps(snapshot, ensure_ascii=False))
            return
        with console.status("valuation modeler is thinking (local model: ~30-60 s)...", spinner="dots"):
            result = service.run(symbol, day)
        if as_json:
            typer.echo(result.model_dump_json(indent=2))
            return
        guards = result.guards
        flag = "[red]flagged[/]" if guards.flagged else "[green]passed[/]"
        body = "\n".join(
            [
                f"[bold]{result.valuation_verdict}[/] (confidence {result.confidence_score:.2f})",
                f"intrinsic value: {result.estimated_intrinsic_value_range.lower_bound} .. "
                f"{result.estimated_intrinsic_value_range.upper_bound}",
                "",
                "[bold]evidence[/]",
                *[f"- {e}" for e in result.key_evidence],
                "[bold]risks[/]",
                *[f"- {r}" for r in result.risk_factors],
                "",
                result.reasoning_summary,
                "",
                f"grounding {flag}: {result.grounding.numbers_checked} numbers checked, "
                f"ungrounded: {result.grounding.ungrounded or 'none'}; "
                f"trade instructions: {guards.trade_instructions or 'none'}; retried: {guards.retried}",
            ]
        )
        console.print(Panel(body, title=f"valuation · {result.symbol} · as of {result.as_of}"))

    return app
