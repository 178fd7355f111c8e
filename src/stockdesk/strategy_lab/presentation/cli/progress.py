"""Rich progress for `strategy run`: a bar over iterations, one line per finished iteration."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)

from stockdesk.strategy_lab.application.autonomous_loop import LoopObserver
from stockdesk.strategy_lab.domain.dtos import IterationRecord
from stockdesk.strategy_lab.presentation.cli.tables import STATUS_STYLE


class RunProgress(LoopObserver):
    """Draws the loop's progress on stderr (stdout stays clean for --json)."""

    def __init__(self, console: Console, total: int, max_attempts: int, done: int = 0):
        self._console = console
        self._max_attempts = max_attempts
        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
        )
        self._task = self.progress.add_task("starting", total=total, completed=done)

    def iteration_started(self, number: int, total: int) -> None:
        self.progress.update(self._task, description=f"iteration {number}/{total}: asking the model")

    def attempt(self, number: int, attempt: int) -> None:
        if attempt > 1:
            self.progress.update(
                self._task,
                description=f"iteration {number}: retry {attempt}/{self._max_attempts} with error feedback",
            )

    def iteration_finished(self, record: IterationRecord, champion: IterationRecord | None) -> None:
        style = STATUS_STYLE.get(record.status.value, "")
        if record.metrics is not None:
            m = record.metrics
            detail = (
                f"in-sample Sharpe {m.sharpe:.2f}, annual {m.annual_return:.1%}, max DD {m.max_drawdown:.1%}"
            )
            if record.validation is not None:
                detail += f"; validation Sharpe {record.validation.sharpe:.2f}"
        else:
            last = record.errors[-1] if record.errors else {}
            detail = f"{last.get('field_path', '$')}: {last.get('error_type', '?')}"
        crown = (
            " ★ new champion (on validation)"
            if champion is not None and champion.number == record.number
            else ""
        )
        self._console.print(
            f"iteration {record.number}: [{style}]{record.status.value}[/] · {detail} · "
            f"{record.attempts} attempt(s), {record.tokens:,} tokens, {record.seconds:.0f}s{crown}",
            highlight=False,
        )
        self.progress.update(self._task, advance=1, description=f"iteration {record.number} done")
