"""`stockdesk debate panel SYMBOL --date D --out debate.json`: the panel debate on its own (spec 1-6).

Writes the spec's four-field debate JSON and, beside it, `<stem>.audit.json` (every prompt, answer
and tool call of the run); both only after the debate finished, each atomically. Each model call
and tool call is also in the LLM audit (`stockdesk llm calls`).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from datetime import date
from pathlib import Path

import typer
from rich.console import Console

from stockdesk.debate.application.services.panel_debate import PanelDebateService, PanelResult
from stockdesk.shared.dates import parse_day
from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.files import write_atomic

console = Console(stderr=True)


def debate_day(value: str) -> date:
    """`2024-07-26` or the spec's `20240726`."""
    compact = re.fullmatch(r"(\d{4})(\d{2})(\d{2})", value.strip())
    day = parse_day("-".join(compact.groups()) if compact else value.strip())
    assert day is not None
    return day


def audit_path(out: Path) -> Path:
    return out.with_name(f"{out.stem}.audit.json")


def summary_lines(result: PanelResult) -> list[str]:
    c = result.artifact["conclusion"]
    return [
        f"rounds: {result.rounds}  consensus: {'yes' if result.consensus else 'no'}  "
        f"tool calls: {result.tool_calls}  dropped sources: {result.dropped_sources}",
        f"conclusion: {c['action']} (confidence {c['confidence']:.2f}) {c['text']}",
    ]


def build_panel_command(
    get_panel: Callable[..., PanelDebateService], run_scope: Callable[[str], object] | None = None
) -> Callable[..., None]:
    """`get_panel(**changes)` builds the panel with some options changed (`max_rounds`)."""

    def panel(
        symbol: str = typer.Argument(..., help="Ticker, e.g. AAPL or 600519.SH."),
        day: str = typer.Option(..., "--date", "-d", help="Debate date (YYYY-MM-DD or YYYYMMDD)."),
        out: Path = typer.Option(..., "--out", "-o", help="Where to write the debate JSON (.json)."),
        max_rounds: int | None = typer.Option(
            None, "--max-rounds", min=2, max=10, help="Stop after this many rounds (default: settings)."
        ),
    ) -> None:
        """Four experts (fundamental, risk, growth, sentiment) debate in rounds, calling tools; a
        moderator concludes. Writes the spec's debate JSON and an audit file beside it."""
        if out.suffix.lower() != ".json":
            raise BadRequestException(f"--out must end in .json, got {out.name!r}", code="BAD_OUTPUT")
        as_of = debate_day(day)
        service = get_panel(**({"max_rounds": max_rounds} if max_rounds else {}))
        run_id = f"panel-{uuid.uuid4().hex[:10]}"
        scope = run_scope(run_id) if run_scope else None
        with console.status(f"{symbol.upper()} {as_of}: round 1 ...", spinner="dots") as status:

            def progress(line: str) -> None:
                console.print(f"  {line}", highlight=False)
                status.update(f"{symbol.upper()} {as_of}: next step ...")

            if scope is not None:
                with scope:  # type: ignore[attr-defined]
                    result = service.run(symbol, as_of, [], on_progress=progress)
            else:
                result = service.run(symbol, as_of, [], on_progress=progress)
        audit = {"run_id": run_id, "ticker": result.artifact["ticker"], "date": result.artifact["date"]}
        audit |= {
            "dropped_sources": result.dropped_sources,
            "tool_calls": result.tool_calls,
            "steps": result.audit,
        }
        write_atomic(out, json.dumps(result.artifact, ensure_ascii=False, indent=2))
        write_atomic(audit_path(out), json.dumps(audit, ensure_ascii=False, indent=2))
        for line in summary_lines(result):
            typer.echo(line)
        typer.echo(f"wrote {out} and {audit_path(out)} (run {run_id}: `stockdesk llm calls` lists its calls)")

    return panel


def build_debate_cli(
    get_panel: Callable[..., PanelDebateService], run_scope: Callable[[str], object] | None = None
) -> typer.Typer:
    app = typer.Typer(help="Debates on their own (the panel of spec debate-panel).", no_args_is_help=True)
    app.command("panel")(build_panel_command(get_panel, run_scope))
    return app
