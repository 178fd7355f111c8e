"""`stockdesk llm ...` commands."""

from __future__ import annotations

import json
from collections.abc import Callable

import typer
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.llm_platform.application.ping import run_ping

console = Console()


def model_assembly_progress() -> tuple[Progress, Callable[[int, int], None]]:
    """A Rich progress bar and the callback that feeds it while the model file is assembled."""
    progress = Progress(
        TextColumn("[bold]assembling local model"),
        BarColumn(),
        DownloadColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task = progress.add_task("model", total=None)

    def update(done: int, total: int) -> None:
        if not progress.live.is_started:
            progress.start()
        progress.update(task, completed=done, total=total)
        if done >= total:
            progress.stop()

    return progress, update


def build_llm_cli(get_service: Callable[[], LLMService]) -> typer.Typer:
    app = typer.Typer(
        help="Language-model platform: providers, routing, structured output.", no_args_is_help=True
    )

    @app.command("ping")
    def ping(
        alias: str | None = typer.Option(None, "--alias", "-a", help="Alias to use (default: router order)."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON document only."),
    ) -> None:
        """One structured round trip: prints the parsed JSON, model, tokens and seconds."""
        service = get_service()
        with console.status("waiting for the model...", spinner="dots"):
            result = run_ping(service, alias=alias)
        payload = {
            "parsed": result.parsed.model_dump(),
            "alias": result.alias,
            "provider": result.provider,
            "model": result.model,
            "prompt_tokens": result.usage.prompt_tokens,
            "completion_tokens": result.usage.completion_tokens,
            "seconds": result.latency_seconds,
            "attempts": result.attempts,
        }
        if as_json:
            typer.echo(json.dumps(payload, ensure_ascii=False))
            return
        console.print_json(json.dumps(payload["parsed"], ensure_ascii=False))
        console.print(
            f"[green]ok[/] alias={result.alias} model={result.model} "
            f"tokens={result.usage.prompt_tokens}+{result.usage.completion_tokens} "
            f"seconds={result.latency_seconds:.1f} attempts={result.attempts}"
        )

    @app.command("aliases")
    def aliases() -> None:
        """List the router's aliases in the order they are tried."""
        for name in get_service().aliases:
            typer.echo(name)

    return app
