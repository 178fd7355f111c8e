"""`stockdesk batch analyze`: many symbols, one report each and an index, resumable, on Ray.

Killing the command loses only the analyses in flight: running it again with the same arguments
opens the same job and analyses only the symbols without a finished task.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer
from rich.console import Console

from stockdesk.coordinator.application import DebateModeName, parse_experts
from stockdesk.coordinator.application.batch_analysis import (
    BatchAnalysisConfig,
    BatchAnalysisService,
    clean_symbols,
)
from stockdesk.coordinator.presentation.reports.batch_index import INDEX_NAME, print_index, run_and_index
from stockdesk.shared.dates import parse_day
from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.exports import find_chromium
from stockdesk.shared.task_progress import exit_if_stopped, follow
from stockdesk.shared.tasks import (
    BatchWorker,
    InlineEngine,
    ITaskEngine,
    JobRecord,
    JobStatus,
    RunBudget,
    TaskCounts,
)
from stockdesk.shared.universe import read_universe

WorkFactory = Callable[[BatchAnalysisConfig], BatchWorker]
EngineFactory = Callable[[int, str | None], ITaskEngine]


def run_batch(
    service: BatchAnalysisService,
    config: BatchAnalysisConfig,
    work: BatchWorker,
    engine: ITaskEngine,
    *,
    budget: RunBudget | None = None,
    max_attempts: int = 2,
    console: Console | None = None,
    job: JobRecord | None = None,
) -> TaskCounts:
    """Analyse what the batch job is missing and write its index; the final counts.

    `job`: the config's job when the caller has opened it already; else it is opened here.
    """
    console = console or Console(stderr=True)
    if job is None:
        job, _added = service.open(config)
    before = service.counts(job.id)
    if before.done:
        console.print(
            f"job {job.id[:12]}: {before.done} of {before.total} symbols already analysed; "
            f"running the other {before.total - before.done}",
            highlight=False,
        )
    progress, update = follow(console, "analysing")
    update(before)
    with progress:
        counts = run_and_index(
            service,
            config,
            job.id,
            work,
            engine,
            budget=budget,
            max_attempts=max_attempts,
            on_progress=lambda done, total: update(service.counts(job.id)),
        )
    ended = service.counts(job.id)
    status = _status_line(service, job.id)
    console.print(
        f"{ended.done} of {ended.total} symbols analysed"
        + (f", {ended.failed} failed" if ended.failed else "")
        + (f" ({status})" if status else ""),
        highlight=False,
    )
    index = Path(config.out_dir) / INDEX_NAME
    typer.echo(f"index written to {index.resolve()}")
    return counts


def _status_line(service: BatchAnalysisService, job_id: str) -> str:
    job = service.job(job_id)
    if job is None or job.status is JobStatus.DONE:
        return ""
    return f"{job.status.value}: {job.error}" if job.error else job.status.value


def build_batch_cli(
    get_service: Callable[[], BatchAnalysisService],
    make_work: WorkFactory,
    make_engine: EngineFactory,
) -> typer.Typer:
    app = typer.Typer(help="Batch work over many symbols on Ray (local, or a cluster by address).")

    @app.command("analyze")
    def analyze(
        symbols: str | None = typer.Option(None, "--symbols", help="Comma list, e.g. 000338.SZ,AAPL."),
        universe: Path | None = typer.Option(
            None, "--universe", help="File of symbols: one per line, or a CSV with a symbol column."
        ),
        as_of: str = typer.Option(..., "--as-of", help="Analysis date YYYY-MM-DD (point in time)."),
        out: Path = typer.Option(..., "--out", help="Folder for the reports and index.html."),
        experts: str | None = typer.Option(
            None, "--experts", help="Comma list: valuation,technical,financial,macro,catalyst (default all)."
        ),
        skip_debate: bool = typer.Option(False, "--skip-debate", help="Experts only: no debate, no verdict."),
        debate: DebateModeName = typer.Option(DebateModeName.BULL_BEAR, "--debate", help="Debate mode."),
        rules_only: bool = typer.Option(
            False, "--rules-only", help="No LLM: each expert's code-only signal and the rules verdict."
        ),
        workers: int = typer.Option(2, "--workers", min=1, max=512, help="Analyses at once."),
        ray_address: str | None = typer.Option(
            None,
            "--ray-address",
            help="Ray cluster to run on (default $STOCKDESK_RAY_ADDRESS, else a local Ray).",
        ),
        max_tokens: int | None = typer.Option(
            None, "--max-tokens", min=1, help="Stop starting analyses once the batch spent this many tokens."
        ),
        max_cost: float | None = typer.Option(
            None, "--max-cost", min=0.0, help="Stop starting analyses once the batch cost this many USD."
        ),
        max_attempts: int = typer.Option(2, "--max-attempts", min=1, max=10, help="Tries per symbol."),
        pdf: bool = typer.Option(False, "--pdf", help="Also print the index as index.pdf beside index.html."),
    ) -> None:
        """Analyse many symbols: one report per symbol and an index ranking the verdicts."""
        if bool(symbols) == bool(universe):
            raise BadRequestException("give exactly one of --symbols or --universe", code="NO_SYMBOLS")
        if pdf:
            find_chromium()  # no browser to print with: one line before any work
        names = read_universe(universe) if universe else (symbols or "").split(",")
        if out.exists() and not out.is_dir():
            raise BadRequestException(f"--out {out} is a file, not a folder", code="BAD_OUTPUT")
        config = BatchAnalysisConfig(
            symbols=clean_symbols(names),
            as_of=parse_day(as_of),  # type: ignore[arg-type]
            experts=parse_experts(experts),
            skip_debate=skip_debate,
            debate_mode=debate,
            rules_only=rules_only,
            out_dir=str(out.resolve()),
        )
        out.mkdir(parents=True, exist_ok=True)
        service, console = get_service(), Console(stderr=True)
        job, _ = service.open(config)  # unknown symbols fail here, before any engine starts
        counts = service.counts(job.id)
        # a finished batch only rewrites its index: no need to start Ray for that
        engine = InlineEngine() if counts.done == counts.total else make_engine(workers, ray_address)
        run_batch(
            service,
            config,
            make_work(config),
            engine,
            budget=RunBudget.of(max_tokens, max_cost),
            max_attempts=max_attempts,
            console=console,
            job=job,
        )
        if pdf:
            typer.echo(f"index printed to {print_index(config).resolve()}")
        ended = service.job(job.id)
        if ended is not None:
            exit_if_stopped(console, ended.status.value, ended.error, job.id)

    return app
