"""`stockdesk doctor`: every check in one table (or JSON), exit 1 when a required check failed."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from stockdesk.entrypoints.doctor import CHECKS, CheckResult, DoctorContext, Status, run_checks
from stockdesk.llm_platform.infrastructure.embedded.model_files import ProgressCallback
from stockdesk.llm_platform.presentation.cli import model_assembly_progress, size_text
from stockdesk.shared.config import Settings

STYLES = {Status.OK: "green", Status.WARN: "yellow", Status.FAIL: "bold red", Status.SKIP: "dim"}


def hash_progress() -> ProgressCallback:
    """A progress bar on a terminal; elsewhere one line, so a log shows why the doctor takes a while."""
    console = Console(stderr=True)
    if console.is_terminal:
        return model_assembly_progress("checking the model's sha256")[1]
    said = False

    def note(_done: int, total: int) -> None:
        nonlocal said
        if not said:
            console.print(f"hashing the model file ({size_text(total)})…", highlight=False)
            said = True

    return note


def summary(results: list[CheckResult]) -> str:
    counts = Counter(r.status for r in results)
    tally = ", ".join(f"{counts[s]} {s.value}" for s in Status)
    failed = [r.name for r in results if r.status is Status.FAIL]
    verdict = f"failed: {', '.join(failed)}" if failed else "no required check failed"
    checks = "1 check" if len(results) == 1 else f"{len(results)} checks"
    return f"{checks}: {tally}; {verdict}"


def results_table(results: list[CheckResult]) -> Table:
    table = Table(title="stockdesk doctor", show_lines=True)
    table.add_column("check", no_wrap=True)
    table.add_column("result", no_wrap=True)
    table.add_column("detail", overflow="fold", ratio=3)  # paths are shown whole, folded if need be
    table.add_column("fix", overflow="fold", ratio=2)
    for r in results:
        name = Text(r.name)
        if not r.required:
            name.append("\noptional", style="dim")
        table.add_row(name, Text(r.status.value, style=STYLES[r.status]), Text(r.found), Text(r.fix or ""))
    return table


def build_doctor_command(get_settings: Callable[[], Settings]) -> Callable[..., None]:
    def doctor(
        as_json: bool = typer.Option(False, "--json", help="Print the results as one JSON document."),
        deep: bool = typer.Option(
            False, "--deep", help="Also hash the model file again and start Ray to run one task (slower)."
        ),
    ) -> None:
        context = DoctorContext(get_settings(), deep=deep, progress=hash_progress())
        results = run_checks(CHECKS, context)
        failed = any(r.status is Status.FAIL for r in results)
        if as_json:
            payload = {
                "checks": [r.model_dump(mode="json") for r in results],
                "summary": summary(results),
                "failed": failed,
            }
            typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        else:
            console = Console()
            console.print(results_table(results))
            console.print(summary(results), highlight=False)
        if failed:
            raise typer.Exit(1)

    doctor.__doc__ = help_text()  # the lists come from CHECKS, so the help cannot drift from them
    return doctor


def help_text() -> str:
    required = ", ".join(c.name for c in CHECKS if c.required)
    optional = ", ".join(c.name for c in CHECKS if not c.required)
    return (
        "Check the install and this machine: what works, and how to fix what does not.\n\n"
        f"Exit 1 when a required check failed ({required}); the optional ones ({optional}) only warn."
    )
