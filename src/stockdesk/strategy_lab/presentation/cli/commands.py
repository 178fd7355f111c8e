"""`stockdesk strategy backtest | run | show | list` (and `sweep`, built in sweep.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer
from pydantic import ValidationError
from rich.console import Console

from stockdesk.shared.dates import parse_day
from stockdesk.shared.exports import ready_format
from stockdesk.strategy_lab.application.service import StrategyLabService, parse_params
from stockdesk.strategy_lab.application.trials import best_scored
from stockdesk.strategy_lab.domain.dtos import (
    DEFAULT_MAX_DRAWDOWN,
    BacktestWindow,
    ExecutionSettings,
    RunConfig,
    RunStatus,
    SplitConfig,
    StrategyRunDTO,
)
from stockdesk.strategy_lab.domain.errors import InvalidBacktestWindowError
from stockdesk.strategy_lab.presentation.chart import write_equity_png
from stockdesk.strategy_lab.presentation.cli.progress import RunProgress
from stockdesk.strategy_lab.presentation.cli.tables import (
    backtest_heading,
    iterations_table,
    metrics_table,
    overfitting_lines,
    params_summary,
    splits_table,
)
from stockdesk.strategy_lab.presentation.report import write_run_report

UNIVERSE_HELP = "Comma list of stored symbols, or 'all' (default: every stored security with history)."
FROM_HELP = "First day scored (default: 3 years before --to)."
TO_HELP = "Last day scored (default: the newest stored bar)."


def parse_universe(value: str | None) -> list[str] | None:
    if value is None or value.strip().lower() in ("", "all"):
        return None
    return [part.strip() for part in value.split(",") if part.strip()]


def window(universe: str | None, start: str | None, end: str | None) -> BacktestWindow:
    return BacktestWindow(universe=parse_universe(universe), start=parse_day(start), end=parse_day(end))


def execution(capital: float, slippage: float, no_lots: bool) -> ExecutionSettings:
    return ExecutionSettings(capital=None if no_lots else capital, slippage=slippage)


def split_config(mode: str, in_sample: float, validation: float, folds: int) -> SplitConfig:
    try:
        return SplitConfig(
            mode=mode.replace("-", "_"), in_sample=in_sample, validation=validation, folds=folds
        )
    except ValidationError as exc:  # a share combination leaving no holdout
        message = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())
        raise InvalidBacktestWindowError(f"invalid split: {message}") from exc


CAPITAL_HELP = "Starting money: A-shares trade in lots of 100 shares."
SLIPPAGE_HELP = "Slippage per side, a fraction of the traded value (commission and stamp duty come on top)."


def build_strategy_cli(
    get_service: Callable[[], StrategyLabService], sweep: Callable[..., None] | None = None
) -> typer.Typer:
    """`sweep` is the `strategy sweep` command (presentation/cli/sweep.py), wired by the entrypoint."""
    app = typer.Typer(
        help="Strategy lab: LLM-chosen parameters, template code, vectorised backtests.", no_args_is_help=True
    )
    if sweep is not None:
        app.command("sweep")(sweep)
    out, err = Console(), Console(stderr=True)
    _add_backtest(app, get_service, out, err)
    _add_run(app, get_service, out, err)
    _add_show(app, get_service, out, err)
    _add_list(app, get_service, out, err)
    return app


def _add_backtest(
    app: typer.Typer, get_service: Callable[[], StrategyLabService], out: Console, err: Console
) -> None:
    """`strategy backtest`: one parameter set, no LLM."""

    @app.command("backtest")
    def backtest(
        params: str = typer.Option(
            ...,
            "--params",
            help='JSON object of one family\'s parameters with "strategy_type" (momentum, mean_reversion, '
            "volatility; missing = momentum).",
        ),
        universe: str | None = typer.Option(None, "--universe", help=UNIVERSE_HELP),
        start: str | None = typer.Option(
            None, "--from", help="First day scored (default: 3 years before --to)."
        ),
        end: str | None = typer.Option(
            None, "--to", help="Last day scored (default: the newest stored bar)."
        ),
        capital: float = typer.Option(1_000_000.0, "--capital", min=1.0, help=CAPITAL_HELP),
        slippage: float = typer.Option(0.0005, "--slippage", min=0.0, max=0.04, help=SLIPPAGE_HELP),
        no_lots: bool = typer.Option(False, "--no-lots", help="Fractional positions (no 100-share lots)."),
        as_json: bool = typer.Option(False, "--json", help="Print the full result as JSON."),
    ) -> None:
        """Backtest one parameter set on stored prices (no LLM), with and without costs."""
        chosen = parse_params(params)
        settings = execution(capital, slippage, no_lots)
        with err.status("backtesting"):
            result = get_service().backtest(chosen, window(universe, start, end), settings)
        if as_json:
            typer.echo(result.model_dump_json(indent=2))
            return
        out.print(backtest_heading(result), highlight=False)
        out.print(metrics_table(result.metrics, result.benchmark, result.gross_metrics))
        if result.blocked_orders:
            out.print(
                f"{result.blocked_orders} orders blocked by a price limit or a suspension", highlight=False
            )
        verdict = "beat" if result.beat_benchmark else "did not beat"
        out.print(f"The strategy {verdict} the equal-weight universe on Sharpe.", highlight=False)
        for note in result.notes:
            out.print(f"[yellow]note:[/] {note}", highlight=False)


def _add_run(
    app: typer.Typer, get_service: Callable[[], StrategyLabService], out: Console, err: Console
) -> None:
    """`strategy run`: the autonomous loop, resumable."""

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
            DEFAULT_MAX_DRAWDOWN,
            "--max-drawdown",
            min=0.01,
            max=1.0,
            help="The champion may not lose more (on validation).",
        ),
        split: str = typer.Option(
            "fixed",
            "--split",
            help="fixed (in-sample, validation, holdout) or walk-forward (rolling windows).",
        ),
        in_sample: float = typer.Option(0.6, "--in-sample", min=0.05, max=0.9, help="Share of trading days."),
        validation: float = typer.Option(
            0.2, "--validation", min=0.05, max=0.9, help="Share of trading days."
        ),
        folds: int = typer.Option(3, "--folds", min=2, max=12, help="Walk-forward windows."),
        capital: float = typer.Option(1_000_000.0, "--capital", min=1.0, help=CAPITAL_HELP),
        slippage: float = typer.Option(0.0005, "--slippage", min=0.0, max=0.04, help=SLIPPAGE_HELP),
        no_lots: bool = typer.Option(False, "--no-lots", help="Fractional positions (no 100-share lots)."),
        resume: str | None = typer.Option(None, "--resume", help="Continue an unfinished run by its id."),
        as_json: bool = typer.Option(False, "--json", help="Print the finished run as JSON."),
    ) -> None:
        """The autonomous loop: the LLM proposes, code generates and backtests, the best is kept."""
        service = get_service()
        if resume:
            record = service.get(resume)
        else:
            if split.replace("-", "_") not in ("fixed", "walk_forward"):
                raise InvalidBacktestWindowError(f"--split must be fixed or walk-forward, not {split!r}")
            config = RunConfig(
                iterations=iterations,
                window=window(universe, start, end),
                max_drawdown_limit=max_drawdown,
                split=split_config(split, in_sample, validation, folds),
                execution=execution(capital, slippage, no_lots),
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


def _add_show(
    app: typer.Typer, get_service: Callable[[], StrategyLabService], out: Console, err: Console
) -> None:
    """`strategy show`: a run, its champion's equity curve (PNG) or the whole run as HTML."""

    @app.command("show")
    def show(
        run_id: str = typer.Argument(..., help="A strategy run id (see `stockdesk strategy list`)."),
        png: Path | None = typer.Option(
            None,
            "--png",
            help="Champion equity-curve PNG path (default reports/strategy-<id>.png).",
        ),
        report: Path | None = typer.Option(
            None,
            "--out",
            help="Write the whole run as one report, run.html or run.pdf (charts, splits, code, iterations).",
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the run as JSON."),
    ) -> None:
        """A run's iterations, its champion, and its equity curve as a PNG (or --out run.html|run.pdf)."""
        service = get_service()
        record = service.get(run_id)
        if as_json:
            typer.echo(record.model_dump_json(indent=2))
            return
        if report is not None:
            ready_format(report)  # .html or .pdf (with Chromium); anything else: one line before any work
        print_run(out, record)
        shown = record.champion or best_scored(record.iterations)
        if shown is None:
            if report is not None:
                write_run_report(record, None, report)
                out.print(f"report written to {report.resolve()}", highlight=False)
            return
        with err.status(f"re-scoring iteration {shown.number} from its stored parameters"):
            result = service.replay(run_id, shown.number)
        if report is not None:
            write_run_report(record, result, report)
            out.print(f"report written to {report.resolve()}", highlight=False)
            return
        path = png or Path("reports") / f"strategy-{run_id[:8]}.png"
        label = "champion" if record.champion else "best (drawdown over the limit)"
        title = f"run {run_id[:8]} · {label} iteration {shown.number} · {backtest_heading(result)}"
        write_equity_png(result, path, title)
        out.print(f"equity curve written to {path.resolve()}", highlight=False)


def _add_list(
    app: typer.Typer, get_service: Callable[[], StrategyLabService], out: Console, err: Console
) -> None:
    """`strategy list`: recent runs, newest first."""

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


def print_run(console: Console, run: StrategyRunDTO) -> None:
    w = run.config.window
    universe = ",".join(w.universe) if w.universe else "all"
    console.print(
        f"[bold]strategy run {run.id}[/] · {run.status.value} · universe {universe} · "
        f"{w.start or 'default'} → {w.end or 'default'} · max drawdown {run.config.max_drawdown_limit:.0%} · "
        f"split {_split_text(run)}",
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
        console.print(params_summary(champion.params), highlight=False)
        console.print(champion.params.model_dump_json(), highlight=False)
    if champion.reasoning:
        console.print(f"reasoning: {champion.reasoning}", highlight=False)
    if run.splits is not None:
        console.print(splits_table(run.splits))
    else:
        console.print("in-sample figures (the holdout is scored when the run completes):", highlight=False)
        console.print(metrics_table(champion.metrics, champion.benchmark))
    if run.summary is not None:
        for line in overfitting_lines(run.summary.overfitting):
            console.print(line, highlight=False)
    console.print(
        f"families tried: {', '.join(run.families_tried) or '-'} · "
        f"{run.llm_calls} LLM calls, {run.tokens:,} tokens",
        highlight=False,
    )


def _split_text(run: StrategyRunDTO) -> str:
    split = run.config.split
    text = f"{split.mode.replace('_', '-')} {split.in_sample:.0%}/{split.validation:.0%}/{split.holdout:.0%}"
    return text + (f" in {split.folds} folds" if split.mode == "walk_forward" else "")
