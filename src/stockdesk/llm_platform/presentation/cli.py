"""`stockdesk llm ...` commands."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from datetime import UTC

import typer
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from stockdesk.llm_platform.application.llm_service import CacheStats, LLMService
from stockdesk.llm_platform.application.ping import run_ping
from stockdesk.llm_platform.domain.dtos import AuditedCall

console = Console()
err_console = Console(stderr=True)


def _interactive() -> bool:
    """Whether a confirmation can be asked (a person at a terminal)."""
    return sys.stdin.isatty()


def size_text(size_bytes: int) -> str:
    """Bytes in B, KB, MB or GB (1024-based, one decimal): the cache's size, `stockdesk doctor`'s files."""
    if size_bytes < 1024:
        return f"{size_bytes} B"
    value = size_bytes / 1024
    for unit in ("KB", "MB"):
        if value < 1024:
            return f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def _stats_lines(stats: CacheStats, enabled: bool) -> list[str]:
    lines = [
        f"entries: {stats.entries}",
        f"size:    {size_text(stats.size_bytes)}",
    ]
    if stats.oldest and stats.newest:
        lines.append(f"oldest:  {stats.oldest.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC")
        lines.append(f"newest:  {stats.newest.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC")
    lines.append(
        f"STOCKDESK_LLM_CACHE is {'on' if enabled else 'off'} (`stockdesk evaluate` always uses the cache)"
    )
    return lines


def model_assembly_progress(
    label: str = "assembling local model",
) -> tuple[Progress, Callable[[int, int], None]]:
    """A Rich progress bar and the callback that feeds it while the model file is assembled (or, with
    another `label`, hashed by `stockdesk doctor`)."""
    progress = Progress(
        TextColumn(f"[bold]{label}"),
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

    @app.command("calls")
    def calls(
        last: int = typer.Option(20, "--last", "-n", min=1, max=10_000, help="How many of the newest calls."),
        as_json: bool = typer.Option(False, "--json", help="One JSON object per line, newest first."),
    ) -> None:
        """The audit trail: model, purpose, tokens, seconds and tool calls of the newest calls."""
        found = get_service().recent_calls(last)
        if as_json:
            for call in found:
                typer.echo(json.dumps(call_json(call), ensure_ascii=False))
            return
        if not found:
            typer.echo("no LLM calls recorded yet")
            return
        console.print(calls_table(found))

    app.add_typer(_build_cache_cli(get_service), name="cache")
    return app


def call_json(call: AuditedCall) -> dict[str, object]:
    """`stockdesk llm calls --json`: one object per call, tool results by size only."""
    return {
        "call_id": call.call_id,
        "at": call.created_at.astimezone(UTC).isoformat(timespec="seconds"),
        "run_id": call.run_id,
        "model": call.model,
        "purpose": call.purpose,
        "status": call.status,
        "tokens": call.tokens,
        "prompt_tokens": call.prompt_tokens,
        "prompt_tokens_evaluated": call.prompt_tokens_evaluated,
        "prompt_tokens_cached": call.prompt_tokens_cached,
        "completion_tokens": call.completion_tokens,
        "seconds": call.seconds,
        "tool_calls": [
            {
                "name": t.name,
                "arguments": t.arguments,
                "status": t.status,
                "result_size": t.result_chars,
                **({"error": t.error} if t.error else {}),
            }
            for t in call.tool_calls
        ],
    }


def _short(arguments: dict[str, object], limit: int = 60) -> str:
    text = json.dumps(arguments, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


UNKNOWN = "—"  # the provider did not say (or nothing was evaluated: a cached or failed call)
CALL_COLUMNS = (
    "at (UTC)",
    "purpose",
    "model",
    "status",
    "tokens",
    "evaluated",
    "cached",
    "seconds",
    "tool calls",
)
NUMERIC_COLUMNS = ("tokens", "evaluated", "cached", "seconds")


def _count(value: int | None) -> str:
    return UNKNOWN if value is None else str(value)


def calls_table(found: list[AuditedCall]) -> Table:
    """One row per call. `evaluated` / `cached`: of its prompt, the tokens the model really ran and
    those it reused from its prompt cache; on a CPU the first, not `tokens`, is what a call costs."""
    table = Table(title=f"newest {len(found)} LLM call{'' if len(found) == 1 else 's'}")
    for column in CALL_COLUMNS:
        justify = "right" if column in NUMERIC_COLUMNS else "left"
        table.add_column(column, justify=justify, no_wrap=column != "tool calls")
    for call in found:
        tools = "\n".join(
            f"{t.name}({_short(t.arguments)}) -> {t.status}, {t.result_chars} chars" for t in call.tool_calls
        )
        table.add_row(
            f"{call.created_at.astimezone(UTC):%m-%d %H:%M:%S}",
            call.purpose or "-",
            call.model,
            call.status,
            str(call.tokens),
            _count(call.prompt_tokens_evaluated),
            _count(call.prompt_tokens_cached),
            f"{call.seconds:.1f}",
            tools or "-",
        )
    return table


def _build_cache_cli(get_service: Callable[[], LLMService]) -> typer.Typer:
    cache = typer.Typer(
        help="The LLM response cache (replayed answers of identical calls).", no_args_is_help=True
    )

    @cache.command("stats")
    def stats(as_json: bool = typer.Option(False, "--json", help="Print one JSON document only.")) -> None:
        """How many responses are cached, their size and age range (no model is started)."""
        service = get_service()
        result = service.cache_stats()
        if as_json:
            typer.echo(json.dumps({**result.model_dump(mode="json"), "enabled": service.cache_enabled}))
            return
        for line in _stats_lines(result, service.cache_enabled):
            typer.echo(line)

    @cache.command("clear")
    def clear(yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation.")) -> None:
        """Delete every cached response: the next identical calls go to the model again."""
        service = get_service()
        if not yes:
            if not _interactive():
                err_console.print(
                    "[red]error:[/] refusing to clear the LLM response cache without confirmation: "
                    "pass --yes",
                    highlight=False,
                    soft_wrap=True,
                )
                raise typer.Exit(2)
            entries = service.cache_stats().entries
            typer.confirm(f"Delete {entries} cached LLM responses?", abort=True)
        removed = service.cache_clear()
        typer.echo(f"removed {removed} cached LLM response{'' if removed == 1 else 's'}")

    return cache
