"""`stockdesk strategy backtest | run | show | list`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer
from rich.console import Console

from stockdesk.shared.dates import parse_day
from stockdesk.strategy_lab.application.autonomous_loop import best_scored
from stockdesk.strategy_lab.application.service import StrategyLabService, parse_params
from stockdesk.strategy_lab.domain.dtos import (
    DEFAULT_MAX_DRAWDOWN,
    BacktestWindow,
    RunConfig,
    RunStatus,
    StrategyRunDTO,
)
from stockdesk.strategy_lab.presentation.chart import write_equity_png
from stockdesk.strategy_lab.presentation.cli.progress import RunProgress
from stockdesk.strategy_lab.presentation.cli.tables import backtest_heading, iterations_table, metrics_table

UNIVERSE_HELP = "Comma list of stored symbols, or 'all' (default: every stored security with history)."
FROM_HELP = "First day scored (default: 3 years before --to)."
TO_HELP = "Last day scored (default: the newest stored bar)."


def parse_universe(value: str | None) -> list[str] | None:
    if value is None or value.strip().lower() in ("", "all"):
        return None
    return [part.strip() for part in value.split(",") if part.strip()]


def window(universe: str | None, start: str | None, end: str | None) -> BacktestWindow:
    return BacktestWindow(universe=parse_universe(universe), start=parse_day(start), end=parse_day(end))


def build_strategy_cli(get_service: Callable[[], StrategyLabService]) -> typer.Typer:
    app = typer.Typer(
        help="Strategy lab: LLM-chosen parameters, template code, vectorised backtests.", no_args_is_help=True
    )
    out = Console()
    err = Console(stderr=True)

    @app.command("backtest")
    def backtest(
        params: str = typer.Option(..., "--params", help="JSON object of MomentumStrategyParams."),
        universe: str | None = typer.Option(None, "--universe", help=UNIVERSE_HELP),
        start: str | None = typer.Option(
            None, "--from", help="First day scored (default: 3 years before --to)."
        ),
        end: str | None = typer.Option(
            None, "--to", help="Last day scored (default: the newest stored bar)."
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the full result as JSON."),
    ) -> None:
        """Backtest one parameter set on stored prices (no LLM)."""
        chosen = parse_params(params)
        with err.status("backtesting"):
            result = get_service().backtest(chosen, window(universe, start, end))
        if as_json:
            typer.echo(result.model_dump_json(indent=2))
            return
        out.print(backtest_heading(result), highlight=False)
        out.print(metrics_table(result.metrics, result.benchmark))
        verdict = "beat" if result.beat_benchmark else "did not beat"
        out.print(f"The strategy {verdict} the equal-weight universe on Sharpe.", highlight=False)
        for note in result.notes:
            out.print(f"[yellow]note:[/] {note}", highlight=False)

    @app.command("run")
    def run(
        iterations: int = typer.Option(5, "--iterations", min=1, max=200, help="Iterations to run."),
        universe: str | None = typer.Option(None, "--universe", help=UNIVERSE_HELP),
        start: str | None = typer.Option(
            None, "--from", help="First day scored (default: 3 years before --to)."
        ),
        end: str | None = typer.Option(
            None, "--to", help="Last day scored (default: the newest stored bar)."
        ),
        max_drawdown: float = typer.Option(
            DEFAULT_MAX_DRAWDOWN, "--max-drawdown", min=0.01, max=1.0, help="The champion may not lose more."
        ),
        resume: str | None = typer.Option(None, "--resume", help="Continue an unfinished run by its id."),
        as_json: bool = typer.Option(False, "--json", help="Print the finished run as JSON."),
    ) -> None:
        """The autonomous loop: the LLM proposes, code generates and backtests, the best is kept."""
        service = get_service()
        if resume:
            record = service.get(resume)
        else:
            config = RunConfig(
                iterations=iterations, window=window(universe, start, end), max_drawdown_limit=max_drawdown
            )
            with err.status("checking the universe and window"):
                record = service.create_run(config)
        err.print(f"strategy run {record.id} ({record.config.iterations} iterations)", highlight=False)
        view = RunProgress(err, record.config.iterations, record.config.max_attempts, len(record.iterations))
        try:
            with view.progress:
                finished = service.execute(record.id, view)
        except KeyboardInterrupt:
            err.print(f"interrupted: resume with `stockdesk strategy run --resume {record.id}`")
            raise
        if as_json:
            typer.echo(finished.model_dump_json(indent=2))
        else:
            print_run(out, finished)
        if finished.status == RunStatus.FAILED:  # e.g. the model could not be reached: resumable later
            err.print(f"run failed; resume with `stockdesk strategy run --resume {finished.id}`")
            raise typer.Exit(1)

    @app.command("show")
    def show(
        run_id: str = typer.Argument(..., help="A strategy run id (see `stockdesk strategy list`)."),
        png: Path | None = typer.Option(
            None,
            "--png",
            help="Champion equity-curve PNG path (default reports/strategy-<id>.png).",
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the run as JSON."),
    ) -> None:
        """A run's iterations, its champion, and the champion's equity curve as a PNG."""
        service = get_service()
        record = service.get(run_id)
        if as_json:
            typer.echo(record.model_dump_json(indent=2))
            return
        print_run(out, record)
        shown = record.champion or best_scored(record.iterations)
        if shown is None:
            return
        with err.status(f"re-scoring iteration {shown.number} from its stored parameters"):
            result = service.replay(run_id, shown.number)
        path = png or Path("reports") / f"strategy-{run_id[:8]}.png"
        label = "champion" if record.champion else "best (drawdown over the limit)"
        title = f"run {run_id[:8]} · {label} iteration {shown.number} · {backtest_heading(result)}"
        write_equity_png(result, path, title)
        out.print(f"equity curve written to {path.resolve()}", highlight=False)

    @app.command("list")
    def list_runs(limit: int = typer.Option(20, "--limit", min=1, max=500)) -> None:
        """Recent strategy runs, newest first."""
        for r in get_service().list(limit):
            best = (
                f"champion #{r.champion.number} Sharpe {r.champion.metrics.sharpe:.2f}"
                if (r.champion and r.champion.metrics)
                else "no champion"
            )
            out.print(
                f"{r.id}  {r.created_at:%Y-%m-%d %H:%M}  {r.status.value:<11} "
                f"{len(r.iterations)}/{r.config.iterations} iterations  {best}",
                highlight=False,
            )

    return app


def print_run(console: Console, run: StrategyRunDTO) -> None:
    w = run.config.window
    universe = ",".join(w.universe) if w.universe else "all"
    console.print(
        f"[bold]strategy run {run.id}[/] · {run.status.value} · universe {universe} · "
        f"{w.start or 'default'} → {w.end or 'default'} · max drawdown {run.config.max_drawdown_limit:.0%}",
        highlight=False,
    )
    console.print(iterations_table(run.iterations))
    if run.error:
        console.print(f"[red]run error:[/] {run.error}", highlight=False)
    champion = run.champion
    if champion is None:
        limit = f"{run.config.max_drawdown_limit:.0%}"
        console.print(f"no champion: no iteration stayed within the {limit} drawdown limit", highlight=False)
        champion = best_scored(run.iterations)
        if champion is None or champion.metrics is None:
            return
        console.print(
            f"[bold]best Sharpe: iteration {champion.number}[/] (max drawdown "
            f"{champion.metrics.max_drawdown:.1%}; accept it with --max-drawdown)",
            highlight=False,
        )
    else:
        console.print(f"[bold]champion: iteration {champion.number}[/]", highlight=False)
    if champion.metrics is None or champion.benchmark is None:
        return
    if champion.params is not None:
        console.print(champion.params.model_dump_json(), highlight=False)
    if champion.reasoning:
        console.print(f"reasoning: {champion.reasoning}", highlight=False)
    console.print(metrics_table(champion.metrics, champion.benchmark))
    console.print(f"{run.llm_calls} LLM calls, {run.tokens:,} tokens", highlight=False)
