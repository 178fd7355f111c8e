"""`stockdesk strategy sweep --grid grid.yaml`: every set a task on the job engine, ranked out of sample.

Running the same grid again opens the same job: only sets without a finished task are scored, and
the summary (the winner's holdout, DSR, PBO), once written, is shown as stored.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.files import write_atomic
from stockdesk.shared.task_progress import exit_if_stopped, follow
from stockdesk.shared.tasks import BatchWorker, ITaskEngine, RunBudget
from stockdesk.strategy_lab.application.sweep_service import SweepService
from stockdesk.strategy_lab.domain.params import FAMILIES, family_fields, validate_params
from stockdesk.strategy_lab.domain.sweep import SweepResults, SweepRow, SweepSpec
from stockdesk.strategy_lab.domain.sweep_grid import plan_sweep
from stockdesk.strategy_lab.presentation.cli.sweep_file import read_grid
from stockdesk.strategy_lab.presentation.cli.tables import overfitting_lines, short_params, splits_table

WorkFactory = Callable[[SweepSpec, str], BatchWorker]  # (spec as stored, job id) -> a picklable worker
EngineFactory = Callable[[int, str | None], ITaskEngine]
SHOWN_SKIPPED = 10
FIGURES = (
    "in_sample_sharpe", "in_sample_annual_return", "in_sample_max_drawdown", "validation_sharpe",
    "validation_annual_return", "validation_total_return", "validation_max_drawdown", "validation_trades",
)  # fmt: skip


def run_sweep(
    service: SweepService,
    spec: SweepSpec,
    make_work: WorkFactory,
    engine: ITaskEngine,
    *,
    console: Console,
    max_attempts: int = 2,
    budget: RunBudget | None = None,
) -> SweepResults:
    """Open (or reopen) the sweep's job, score what is missing, and return the ranked results."""
    try:
        with console.status("checking the grid, the universe and the window"):
            sweep = service.open(spec)
        job_id = sweep.job.id
        before = service.counts(job_id)
        console.print(
            f"sweep job {job_id[:12]}: {len(sweep.plan.sets)} parameter sets"
            + (f", {len(sweep.plan.skipped)} grid combinations skipped" if sweep.plan.skipped else "")
            + (f"; {before.done} of {before.total} tasks already done" if before.done else ""),
            highlight=False,
        )
        for skipped in sweep.plan.skipped[:SHOWN_SKIPPED]:
            console.print(
                f"  skipped {_values(skipped.values)}: {skipped.reason}", highlight=False, soft_wrap=True
            )
        if len(sweep.plan.skipped) > SHOWN_SKIPPED:
            console.print(f"  ... and {len(sweep.plan.skipped) - SHOWN_SKIPPED} more (--json lists them all)")
        progress, update = follow(console, "backtesting")
        update(before)
        try:
            with progress:
                service.run(
                    sweep,
                    make_work(sweep.spec, job_id),
                    engine,
                    max_attempts=max_attempts,
                    budget=budget,
                    on_progress=lambda done, total: update(service.counts(job_id)),
                )
        except KeyboardInterrupt:
            console.print(
                f"interrupted: run the same command again, or `stockdesk jobs resume {job_id[:12]}`",
                highlight=False,
            )
            raise
    finally:
        engine.close()
    return service.results(job_id)


def print_results(console: Console, results: SweepResults, top: int) -> None:
    """The ranked table (top rows), then the winner's holdout and the overfitting statistics."""
    counts = results.counts
    console.print(
        f"[bold]sweep {results.job_id[:12]}[/] · {results.status} · {counts.done} of {counts.total} sets "
        f"scored" + (f", {counts.failed} failed" if counts.failed else "") + " · ranked by validation Sharpe "
        f"(drawdown limit {results.spec.max_drawdown_limit:.0%})",
        highlight=False,
    )
    console.print(ranked_table(results.rows[:top]))
    if len(results.rows) > top:
        console.print(f"... {len(results.rows) - top} more rows (--out results.csv has them all)")
    if results.error:
        console.print(f"[yellow]{results.status}:[/] {results.error}", highlight=False)
    summary = results.summary
    if summary is None:
        console.print("no summary yet: it is written once every set has finished", highlight=False)
        return
    champion = next((r for r in results.rows if r.champion), None)
    if summary.splits is not None and champion is not None:
        console.print(
            f"[bold]winner: set #{champion.number}[/] {_params_text(champion)} · holdout scored once, "
            "for the winner only",
            highlight=False,
        )
        console.print(splits_table(summary.splits))
    for line in overfitting_lines(summary.overfitting):
        console.print(line, highlight=False)
    for note in results.notes:
        if note not in summary.overfitting.notes:
            console.print(f"note: {note}", highlight=False)


def ranked_table(rows: list[SweepRow]) -> Table:
    table = Table()
    table.add_column("rank", no_wrap=True, min_width=4)
    table.add_column("#", no_wrap=True, min_width=2)
    table.add_column("params")  # wraps on a narrow terminal: the figures never do
    for header in ("IS\nSharpe", "val\nSharpe", "val\nannual", "val\nmax DD", "val\ntrades"):
        table.add_column(header, justify="right", no_wrap=True, min_width=6)
    table.add_column("status", min_width=6)
    for row in rows:
        style = "" if row.within_limit is not False else "dim"
        table.add_row(
            (str(row.rank) if row.rank else "-") + (" ★" if row.champion else ""),
            str(row.number),
            _params_text(row),
            _fmt(row.in_sample_sharpe, "{:.2f}"),
            _fmt(row.validation_sharpe, "{:.2f}"),
            _fmt(row.validation_annual_return, "{:.1%}"),
            _fmt(row.validation_max_drawdown, "{:.1%}"),
            _fmt(row.validation_trades, "{:,}"),
            row.status
            + (f": {row.error}" if row.error else "")
            + (f" (= #{row.duplicate_of})" if row.duplicate_of else ""),
            style=style,
        )
    return table


def results_csv(results: SweepResults) -> str:
    """The whole ranked table: figures first, then one column per parameter of the families present."""
    present = {str((r.params or {}).get("strategy_type")) for r in results.rows}
    names = list(dict.fromkeys(n for f in FAMILIES if f in present for n in family_fields(f)))
    head = ["rank", "number", "key", "status", "champion", "within_limit", *FIGURES, "tokens", "error"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*head, *names, "duplicate_of", "reasoning"])
    for row in results.rows:
        data: dict[str, Any] = row.model_dump()
        params = row.params or {}
        writer.writerow(
            [_cell(data[h]) for h in head]
            + [_cell(params.get(n)) for n in names]
            + [_cell(row.duplicate_of), _cell(row.reasoning)]
        )
    return buffer.getvalue()


def build_sweep_command(
    get_service: Callable[[], SweepService], make_work: WorkFactory, make_engine: EngineFactory
) -> Callable[..., None]:
    out = Console()
    err = Console(stderr=True)

    def sweep(
        grid: Path = typer.Option(..., "--grid", help="YAML grid file (see examples/sweep_grid.yaml)."),
        workers: int = typer.Option(2, "--workers", min=1, max=512, help="Backtests at once."),
        ray_address: str | None = typer.Option(
            None, "--ray-address", help="Ray cluster to run on (default $STOCKDESK_RAY_ADDRESS, else local)."
        ),
        results_out: Path | None = typer.Option(None, "--out", help="Write the full ranked table as CSV."),
        as_json: bool = typer.Option(False, "--json", help="Print the full results as JSON."),
        top: int = typer.Option(20, "--top", min=1, max=100_000, help="Rows shown in the table."),
        max_attempts: int = typer.Option(2, "--max-attempts", min=1, max=10, help="Tries per set."),
        max_tokens: int | None = typer.Option(
            None, "--max-tokens", min=1, help="llm_runs: stop starting proposals after this many tokens."
        ),
        max_cost: float | None = typer.Option(
            None, "--max-cost", min=0.0, help="llm_runs: stop starting proposals after this many USD."
        ),
    ) -> None:
        """Backtest every parameter set of a grid (or K LLM proposals) as tasks, ranked out of sample."""
        spec = read_grid(grid)
        plan_sweep(spec)  # a grid without a valid set fails here, before an engine starts
        if results_out is not None and results_out.is_dir():
            raise BadRequestException(f"--out {results_out} is a folder: name a .csv file", code="BAD_OUTPUT")
        budget = RunBudget.of(max_tokens, max_cost)
        results = run_sweep(
            get_service(),
            spec,
            make_work,
            make_engine(workers, ray_address),
            console=err,
            max_attempts=max_attempts,
            budget=budget,
        )
        if results_out is not None:
            write_atomic(results_out, results_csv(results))
            err.print(f"ranked table written to {results_out.resolve()}", highlight=False)
        if as_json:
            typer.echo(results.model_dump_json(indent=2))
        else:
            print_results(out, results, top)
        exit_if_stopped(err, results.status, results.error, results.job_id)

    return sweep


def _params_text(row: SweepRow) -> str:
    return short_params(validate_params(row.params)) if row.params else "-"


def _values(values: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in values.items())


def _fmt(value: float | int | None, pattern: str) -> str:
    return "-" if value is None else pattern.format(value)


def _cell(value: Any) -> Any:
    return "" if value is None else value
