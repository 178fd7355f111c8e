"""A terminal progress bar for a durable job's tasks: done of total, failures, elapsed time and ETA.

Shared so that every batch command (batch analyze, strategy sweep, ...) shows its job alike; it is
fed with the job's `TaskCounts` after each finished batch. When stderr is not a terminal (a log
file, CI, nohup) a bar cannot redraw: each change prints one line with the counts and an ETA.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from stockdesk.shared.tasks import JobStatus, TaskCounts

BUDGET_EXIT_CODE = 3  # the job stopped at its token/cost budget: not bad input, not a failure


def exit_if_stopped(console: Console, status: str, reason: str | None, job_id: str) -> None:
    """A job stopped by its budget: say so and how to go on, and exit with BUDGET_EXIT_CODE."""
    import typer

    if status != JobStatus.STOPPED.value:
        return
    console.print(
        f"[yellow]stopped:[/] {reason or 'budget reached'}; run the same command with a higher "
        f"--max-tokens/--max-cost (or `stockdesk jobs resume {job_id[:12]}`) to go on",
        highlight=False,
    )
    raise typer.Exit(BUDGET_EXIT_CODE)


def follow(console: Console, what: str) -> tuple[Progress, Callable[[TaskCounts], None]]:
    """The bar (use it as a context manager) and the function that moves it to new counts."""
    progress = Progress(
        TextColumn(what),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[failed]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
    )
    bar = progress.add_task(what, total=None, failed="")

    started = time.monotonic()
    first: list[int] = []  # tasks already done when following began (a resumed job)
    shown: list[tuple[int, int]] = []

    def update(counts: TaskCounts) -> None:
        failed = f"[red]{counts.failed} failed[/]" if counts.failed else ""
        progress.update(bar, completed=counts.done, total=counts.total, failed=failed)
        if console.is_terminal:
            return
        if not first:
            first.append(counts.done)
        if shown and shown[-1] == (counts.done, counts.failed):
            return
        shown.append((counts.done, counts.failed))
        left = counts.total - counts.done - counts.failed
        failures = f", {counts.failed} failed" if counts.failed else ""
        line = f"{what}: {counts.done}/{counts.total} done{failures}"
        console.print(line + _eta(time.monotonic() - started, counts.done - first[0], left), highlight=False)

    return progress, update


def _eta(elapsed: float, finished_here: int, left: int) -> str:
    """`, 3m 10s elapsed, ETA 6m` from this run's own pace (nothing before its first task ends)."""
    text = f", {_span(elapsed)} elapsed"
    if finished_here > 0 and left > 0:
        text += f", ETA {_span(elapsed / finished_here * left)}"
    return text


def _span(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes}m" if hours else (f"{minutes}m {secs}s" if minutes else f"{secs}s")
