"""`stockdesk evaluate`: replay the desk over past dates and score it (progress on stderr)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from stockdesk.coordinator.application import parse_experts
from stockdesk.evaluation.application.evaluation_service import EvaluationService, WorkerFactory
from stockdesk.evaluation.application.formatting import num, pct
from stockdesk.evaluation.domain.dtos import EvaluationMode, EvaluationReport, evaluation_config
from stockdesk.evaluation.presentation.report import check_out, write_report
from stockdesk.shared.dates import parse_day
from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.task_progress import exit_if_stopped, follow
from stockdesk.shared.tasks import ITaskEngine, RunBudget, TaskCounts
from stockdesk.shared.universe import read_universe

EngineFactory = Callable[[int, str | None], ITaskEngine]


def parse_horizons(value: str) -> list[int]:
    try:
        return [int(part) for part in value.split(",") if part.strip()]
    except ValueError as exc:
        raise BadRequestException(
            f"--horizons must be comma-separated integers, got {value!r}", code="BAD_HORIZONS"
        ) from exc


def headline_table(report: EvaluationReport) -> Table:
    """The figures a reader compares first, one row per set and horizon."""
    table = Table(title="headline figures (rank IC needs 5+ symbols on a date)")
    table.add_column("set", no_wrap=True)
    for column in ("h", "points", "hit", "excess", "IC", "t", "Brier", "skill", "skill wf", "ECE"):
        table.add_column(column, justify="right", no_wrap=True)
    for name, by_horizon in report.metrics.items():
        for horizon, m in by_horizon.items():
            table.add_row(
                name, horizon, str(m["count"]), pct(m["hit_rate"], 2), pct(m["mean_excess"], 2),
                num(m["rank_ic"]["mean"]), num(m["rank_ic"]["t"]), num(m["brier"]),
                num(m["brier_skill"]), num(m.get("brier_skill_walk_forward")), num(m["ece"]),
            )  # fmt: skip
    return table


def model_table(report: EvaluationReport) -> Table | None:
    """What the signal model learned at the longest horizon: each factor's last weight and t, and
    its own rank IC (None when no set carries a model report)."""
    for name, by_horizon in report.metrics.items():
        found = [(h, m["model"]) for h, m in by_horizon.items() if m.get("model")]
        if not found:
            continue
        horizon, learned = found[-1]
        table = Table(
            title=f"signal model on {name} at {horizon} days: last weight and each factor's own rank IC"
        )
        for column in ("factor", "group", "weight", "t", "own IC", "IC t", "dates"):
            table.add_column(
                column, justify="left" if column in ("factor", "group") else "right", no_wrap=True
            )
        for row in learned["factors"]:
            table.add_row(
                row["factor"], row["group"], "prior" if row["weight"] is None else num(row["weight"], 4),
                num(row["t"], 1), num(row["ic_mean"]), num(row["ic_t"], 1), str(row["ic_dates"]),
            )  # fmt: skip
        return table
    return None


def build_evaluate_command(
    get_service: Callable[[], EvaluationService],
    make_engine: EngineFactory | None = None,
    make_worker: WorkerFactory | None = None,
) -> Callable[..., None]:
    """`make_engine(workers, address)` and `make_worker(config)` come from the composition root
    (Ray lives there); without them `--workers` above 1 is refused."""

    def evaluate(
        symbols: str | None = typer.Option(None, "--symbols", help="Comma list, e.g. 600519.SH,601318.SH."),
        universe: Path | None = typer.Option(None, "--universe", help="A file of symbols, one per line."),
        start: str = typer.Option(..., "--from", help="First evaluation date YYYY-MM-DD."),
        end: str = typer.Option(..., "--to", help="Last evaluation date YYYY-MM-DD."),
        every: int = typer.Option(
            20, "--every", min=1, help="Every N trading days of each symbol's calendar."
        ),
        horizons: str = typer.Option("5,20,60", "--horizons", help="Forward horizons in trading days."),
        mode: EvaluationMode = typer.Option(EvaluationMode.RULES, "--mode", help="rules | experts | full."),
        experts: str | None = typer.Option(None, "--experts", help="As in analyze (default all five)."),
        benchmark: str | None = typer.Option(
            None, "--benchmark", help="A stored symbol (default: equal-weight universe)."
        ),
        slippage: float = typer.Option(0.0005, "--slippage", min=0.0, max=0.05, help="Per side, a fraction."),
        capital: float = typer.Option(
            1_000_000.0, "--capital", min=1.0, help="Portfolio starting money (A-share lots: 100 shares)."
        ),
        out: Path | None = typer.Option(
            None, "--out", help="eval.json (the contract), eval.html (the report) or eval.pdf (printed)."
        ),
        workers: int = typer.Option(
            1, "--workers", min=1, max=512, help="Batches at once on Ray; 1: in this process."
        ),
        ray_address: str | None = typer.Option(
            None,
            "--ray-address",
            envvar="STOCKDESK_RAY_ADDRESS",
            help="Run on this Ray cluster (even with 1 worker); 'local' starts Ray here.",
        ),
        max_tokens: int | None = typer.Option(
            None, "--max-tokens", min=1, help="Stop starting batches once this run spent this many tokens."
        ),
        max_cost: float | None = typer.Option(
            None, "--max-cost", min=0.0, help="Stop starting batches once this run cost this many USD."
        ),
        reflection: bool = typer.Option(
            False,
            "--reflection",
            help="Full mode: run each point without and with lessons from earlier points, and compare.",
        ),
    ) -> None:
        """Score past verdicts against what the market did next; resumes an interrupted run."""
        if out is not None:
            check_out(out)  # a bad suffix, or a PDF without Chromium, fails before any work
        if bool(symbols) == bool(universe):
            raise BadRequestException("give exactly one of --symbols or --universe", code="NO_SYMBOLS")
        names = read_universe(universe) if universe else [s for s in (symbols or "").split(",") if s.strip()]
        config = evaluation_config(
            dict(
                symbols=names,
                start=parse_day(start),  # type: ignore[arg-type]
                end=parse_day(end),  # type: ignore[arg-type]
                every=every,
                horizons=parse_horizons(horizons),
                mode=mode,
                experts=[e.value for e in parse_experts(experts)],
                benchmark=benchmark.strip().upper() if benchmark else None,
                slippage=slippage,
                capital=capital,
                reflection=reflection,
            )
        )
        console = Console(stderr=True)
        service = get_service()
        # reflection: the run without lessons first (its points are the lessons' memory), then with
        arms = [config.without_reflection(), config] if config.reflection else [config]
        jobs = [service.start(arm) for arm in arms]  # bad symbols or an empty window fail here
        budget = RunBudget.of(max_tokens, max_cost)
        engine = _engine(make_engine, make_worker, workers, ray_address)
        try:
            if engine is not None:
                console.print(f"running on {engine.name} with {engine.workers} workers", highlight=False)
            for arm, job in zip(arms, jobs, strict=True):
                label = (
                    "evaluating"
                    if not config.reflection
                    else ("evaluating with lessons" if arm.reflection else "evaluating without lessons")
                )
                _execute(service, job.job_id, console, label, engine, make_worker, budget)
        finally:
            if engine is not None:
                engine.close()
        job = jobs[-1]
        report = service.report(job.job_id, resumed=job.done, fresh=True)  # the command scores anew
        console.print(
            f"{len(report.points)} points scored"
            + (f" ({report.resumed} finished by an earlier run)" if report.resumed else "")
            + (f", {len(report.failed)} failed" if report.failed else "")
            + f"; {report.llm_calls} LLM calls, {report.tokens:,} tokens, {report.cache_hits} cache hits",
            highlight=False,
        )
        typer.echo(report.summary)
        if report.metrics:
            screen = Console()
            shown = screen if screen.is_terminal else Console(width=120)
            shown.print(headline_table(report))
            learned = model_table(report)
            if learned is not None:
                shown.print(learned)
        if out is not None:
            written = write_report(report, out)
            typer.echo(f"report written to {written.resolve()}")

    return evaluate


def _execute(
    service: EvaluationService,
    job_id: str,
    console: Console,
    label: str,
    engine: ITaskEngine | None,
    make_worker: WorkerFactory | None,
    budget: RunBudget,
) -> None:
    """One job's points with a progress bar; a stopped or cancelled job ends the command."""
    progress, update = follow(console, label)

    def advance(done: int, total: int) -> None:
        now = service.status(job_id)  # points out of attempts, shown as they come
        update(TaskCounts(done=now.done, failed=now.failed, pending=now.pending, total=now.total))

    with progress:
        service.execute(
            job_id, on_progress=advance, engine=engine, worker=make_worker if engine else None, budget=budget
        )
    ended = service.status(job_id)
    exit_if_stopped(console, ended.status, ended.error, job_id)


def _engine(
    make_engine: EngineFactory | None,
    make_worker: WorkerFactory | None,
    workers: int,
    ray_address: str | None,
) -> ITaskEngine | None:
    """None (in this process, as always) unless more workers or a cluster are asked for."""
    if workers == 1 and not ray_address:
        return None
    if make_engine is None or make_worker is None:
        raise BadRequestException("--workers and --ray-address need the Ray engine", code="NO_ENGINE")
    return make_engine(workers, ray_address)
