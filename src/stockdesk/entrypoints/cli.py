"""The `stockdesk` command: one Typer app composed of each context's commands.

Expected errors print one line and exit non-zero (2 for bad input, 1 otherwise); anything
unexpected prints one line pointing at the log file, which holds the traceback.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from dataclasses import replace
from typing import Any

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from stockdesk import __version__
from stockdesk.briefing.presentation.cli import build_briefing_command
from stockdesk.coordinator.application.batch_analysis import JOB_KIND as BATCH_KIND
from stockdesk.coordinator.application.batch_analysis import BatchAnalysisConfig
from stockdesk.coordinator.presentation.cli.analyze import build_analyze_command, build_retry_command
from stockdesk.coordinator.presentation.cli.batch import build_batch_cli, run_batch
from stockdesk.coordinator.presentation.cli.sessions import build_report_command, build_sessions_command
from stockdesk.data_engineering.presentation.cli import build_data_cli
from stockdesk.debate.presentation.cli.panel import build_debate_cli
from stockdesk.entrypoints.batch.analyze_work import AnalyzeSymbolsWork
from stockdesk.entrypoints.batch.evaluate_work import EvaluatePointsWork
from stockdesk.entrypoints.batch.sweep_work import SweepWork
from stockdesk.entrypoints.batch.workers import batch_engine
from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.doctor.cli import build_doctor_command
from stockdesk.entrypoints.jobs_cli import RunOptions, build_jobs_cli
from stockdesk.entrypoints.keys_cli import build_keys_cli
from stockdesk.entrypoints.scheduling import scheduling_of
from stockdesk.evaluation.application.evaluation_service import JOB_KIND as EVALUATE_KIND
from stockdesk.evaluation.presentation.cli import build_evaluate_command
from stockdesk.evaluation.presentation.track_cli import build_track_cli
from stockdesk.llm_platform.presentation.cli import build_llm_cli, model_assembly_progress
from stockdesk.notifications.presentation.cli import build_notify_cli
from stockdesk.paper.presentation.cli import build_paper_cli
from stockdesk.portfolio.presentation.cli import build_holdings_cli, build_watch_cli
from stockdesk.portfolio.presentation.view_cli import build_portfolio_command, resume_in_foreground
from stockdesk.portfolio.presentation.view_jobs import KIND as PORTFOLIO_VIEW_KIND
from stockdesk.research.presentation.cli import build_research_cli
from stockdesk.research.presentation.screen_cli import build_screen_command
from stockdesk.scheduling.application import KIND as SCHEDULED_KIND
from stockdesk.scheduling.presentation.cli import build_schedule_cli, build_scheduler_command
from stockdesk.shared.config import get_settings, settings_error
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.shared.errors import BadRequestException, NotFoundException, StockdeskError
from stockdesk.shared.logging import FILE_ONLY, configure_logging
from stockdesk.shared.tasks import ITaskEngine
from stockdesk.shared.tasks.kinds import JobKind, JobKinds
from stockdesk.strategy_lab.application.sweep_service import JOB_KIND as SWEEP_KIND
from stockdesk.strategy_lab.domain.sweep import SweepSpec
from stockdesk.strategy_lab.presentation.cli.commands import build_strategy_cli
from stockdesk.strategy_lab.presentation.cli.sweep import build_sweep_command, print_results, run_sweep
from stockdesk.web_search.presentation.cli import build_search_command

logger = logging.getLogger("stockdesk.cli")
err_console = Console(stderr=True)
_container: AppContainer | None = None


def container() -> AppContainer:
    """The process's container, created on first use (so `--help` stays instant)."""
    global _container
    if _container is None:
        _container = AppContainer()
        _progress, update = model_assembly_progress()
        _container.model_progress = update
    return _container


def _engine(workers: int, address: str | None) -> ITaskEngine:
    """Ray for batch work: the given address, else the configured one, else a local instance."""
    return batch_engine(workers, ray_address=address or container().settings.ray_address)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"stockdesk {__version__}")
        raise typer.Exit()


app = typer.Typer(
    help="stockdesk: an AI equity-research desk with computed numbers and structured verdicts.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
config_app = typer.Typer(help="Effective configuration.", no_args_is_help=True)
db_app = typer.Typer(help="Database schema.", no_args_is_help=True)
app.add_typer(config_app, name="config")
app.add_typer(db_app, name="db")
app.add_typer(build_data_cli(lambda: container().data), name="data")
app.add_typer(build_llm_cli(lambda: container().llm_service), name="llm")
app.add_typer(build_research_cli(lambda: container().research), name="research")
app.command("search")(build_search_command(lambda: container().search_service))
app.command("analyze")(
    build_analyze_command(
        lambda: container().coordinator.service, lambda: container().evaluation.track.headline()
    )
)
app.command("retry")(
    build_retry_command(
        lambda: container().coordinator.service, lambda: container().evaluation.track.headline()
    )
)
app.command("report")(build_report_command(lambda: container().coordinator.service))
app.command("sessions")(build_sessions_command(lambda: container().coordinator.service))
app.command("screen")(build_screen_command(lambda: container().research.screen))
app.command("evaluate")(
    build_evaluate_command(
        lambda: container().evaluation.service,
        _engine,
        lambda config: EvaluatePointsWork(container().settings, config),
    )
)
app.add_typer(build_track_cli(lambda: container().evaluation.track), name="track")
app.add_typer(build_paper_cli(lambda: container().paper.service), name="paper")
app.command("briefing")(build_briefing_command(lambda: container().briefing.service))
app.add_typer(
    build_debate_cli(
        lambda **changes: container().debate.panel_with(**changes),
        lambda run_id: container().llm_service.run_scope(run_id),
    ),
    name="debate",
)
app.add_typer(
    build_strategy_cli(
        lambda: container().strategy_lab.service,
        build_sweep_command(
            lambda: container().strategy_lab.sweeps,
            lambda spec, job_id: SweepWork(container().settings, spec, job_id),
            _engine,
        ),
    ),
    name="strategy",
)
app.add_typer(build_keys_cli(lambda: container().api_keys), name="keys")
app.add_typer(build_notify_cli(lambda: container().notifications.service), name="notify")
app.add_typer(build_watch_cli(lambda: container().portfolio.watchlists), name="watch")
app.add_typer(build_holdings_cli(lambda: container().portfolio.holdings), name="holdings")
app.add_typer(build_schedule_cli(lambda: scheduling_of(container())), name="schedule")
app.command("scheduler")(build_scheduler_command(lambda: scheduling_of(container())))
app.command("portfolio")(
    build_portfolio_command(lambda: container().portfolio.view, lambda: container().portfolio.view_jobs)
)
app.command("doctor")(build_doctor_command(lambda: container().settings))
app.add_typer(
    build_batch_cli(
        lambda: container().batch_analysis,
        lambda config: AnalyzeSymbolsWork(container().settings, config),
        _engine,
    ),
    name="batch",
)


def _config(job_id: str) -> dict[str, Any]:
    job = SqlTaskStore(container().database).get_job(job_id)
    if job is None:  # the job kinds found it a moment ago
        raise NotFoundException(f"no job {job_id}", code="JOB_NOT_FOUND")
    return job.config


def _resume_batch(job_id: str, options: RunOptions) -> None:
    config = BatchAnalysisConfig.model_validate(_config(job_id))
    run_batch(
        container().batch_analysis,
        config,
        AnalyzeSymbolsWork(container().settings, config),
        _engine(options.workers, options.ray_address),
        budget=options.budget,
    )


def _resume_evaluation(job_id: str, options: RunOptions) -> None:
    service = container().evaluation.service
    if options.workers == 1 and not options.ray_address:
        service.execute(job_id, budget=options.budget)
    else:
        engine = _engine(options.workers, options.ray_address)
        try:
            service.execute(
                job_id,
                engine=engine,
                worker=lambda config: EvaluatePointsWork(container().settings, config),
                budget=options.budget,
            )
        finally:
            engine.close()
    typer.echo(service.report(job_id).summary)


def _resume_sweep(job_id: str, options: RunOptions) -> None:
    results = run_sweep(
        container().strategy_lab.sweeps,
        SweepSpec.model_validate(_config(job_id)),
        lambda spec, job_id: SweepWork(container().settings, spec, job_id),
        _engine(options.workers, options.ray_address),
        console=err_console,
        budget=options.budget,
    )
    print_results(Console(), results, top=20)


def _job_kinds(options: RunOptions) -> JobKinds:
    """What `jobs resume` runs here, in the foreground (on Ray with --workers or --ray-address):
    batch analyses, evaluations, sweeps, scheduled runs and portfolio views. Briefings and strategy
    runs resume in a server (the jobs page, `POST /api/v1/jobs/{id}/resume`) or by their own command."""
    return JobKinds(
        lambda: container().jobs,
        lambda: SqlTaskStore(container().database),
        [
            JobKind(BATCH_KIND, resume=lambda job_id: _resume_batch(job_id, options)),
            JobKind(EVALUATE_KIND, resume=lambda job_id: _resume_evaluation(job_id, options)),
            JobKind(SWEEP_KIND, resume=lambda job_id: _resume_sweep(job_id, options)),
            JobKind(SCHEDULED_KIND, resume=lambda job_id: scheduling_of(container()).runs.execute(job_id)),
            JobKind(
                PORTFOLIO_VIEW_KIND,
                resume=lambda job_id: resume_in_foreground(container().portfolio.view_jobs, job_id),
            ),
        ],
    )


app.add_typer(build_jobs_cli(lambda: SqlTaskStore(container().database), _job_kinds), name="jobs")


@app.callback()
def root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """Analyse one stock symbol end to end; see `stockdesk COMMAND --help`."""


@config_app.command("show")
def config_show(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Print the effective configuration; secrets show only as <set>/<not set>."""
    data = get_settings().redacted()
    if as_json:
        typer.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return
    table = Table("setting", "value", title="stockdesk configuration")
    for key, value in data.items():
        shown = json.dumps(value, ensure_ascii=False) if isinstance(value, (list, dict)) else str(value)
        table.add_row(key, shown)
    Console().print(table)


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Apply pending migrations (they also run automatically on first use)."""
    database = container().database
    revision = database.upgrade()
    typer.echo(f"database at revision {revision}: {database.url.split('@')[-1]}")


@app.command("serve")
def serve(
    host: str = typer.Option("127.0.0.1", help="Interface to bind; beyond loopback every route needs a key."),
    port: int = typer.Option(8000, help="Port to listen on."),
    no_auth: bool = typer.Option(
        False, "--no-auth", help="Local use only: no API key even on the LLM-spending routes."
    ),
    scheduler: bool = typer.Option(
        False, "--scheduler", help="Also fire the schedules, as `stockdesk scheduler` does, in a thread."
    ),
) -> None:
    """Run the web UI (at /) and the REST API (docs at /api/v1/docs) in one process.

    On loopback the UI needs no key; beyond it, sign in with a key from `stockdesk keys create`.
    """
    import uvicorn

    from stockdesk.entrypoints.api import create_app, default_policy
    from stockdesk.shared.access import AuthMode, is_loopback

    settings = container().settings
    policy = default_policy(settings)
    if not is_loopback(host):
        if no_auth:
            raise BadRequestException(
                f"--no-auth is for loopback only; {host} is reachable from other machines"
            )
        wildcard = host in ("0.0.0.0", "::")
        hosts = (
            policy.allowed_hosts
            if wildcard or host in policy.allowed_hosts
            else (*policy.allowed_hosts, host)
        )
        policy = replace(policy, auth=AuthMode.ALL, allowed_hosts=hosts)
        err_console.print(
            f"API keys required on every route; Host names served: {', '.join(hosts)} "
            "(add names with STOCKDESK_API_ALLOWED_HOSTS)",
            highlight=False,
        )
    elif no_auth:
        policy = replace(policy, auth=AuthMode.NONE)
        err_console.print(
            "[yellow]warning:[/] --no-auth: anything that can reach this port "
            "can spend LLM tokens and search credits",
            highlight=False,
        )
    container().database.ensure_schema()
    shown = f"[{host}]" if ":" in host else ("127.0.0.1" if host in ("0.0.0.0", "") else host)
    err_console.print(
        f"web UI: http://{shown}:{port}/  ·  API docs: http://{shown}:{port}/api/v1/docs", highlight=False
    )
    stop = _start_scheduler() if scheduler else None
    try:
        uvicorn.run(create_app(container(), policy), host=host, port=port, timeout_graceful_shutdown=5)
    finally:
        if stop is not None:
            stop.set()


def _start_scheduler() -> threading.Event:
    """The scheduler's loop in a daemon thread of the server; setting the event stops it."""
    stop = threading.Event()
    loop = scheduling_of(container()).loop(
        say=lambda line: err_console.print(f"scheduler: {line}", highlight=False)
    )
    threading.Thread(target=loop.run, args=(stop,), name="scheduler", daemon=True).start()
    return stop


def main() -> None:
    try:
        settings = get_settings()
    except ValidationError as exc:  # a bad stockdesk.toml or STOCKDESK_* value: one line, no value echoed
        err_console.print(f"[red]error:[/] {settings_error(exc)}", highlight=False, soft_wrap=True)
        sys.exit(2)
    log_file = configure_logging(
        settings.log_dir, settings.log_level, console_level=settings.console_log_level
    )
    code = 0
    try:
        # not standalone: a usage error comes here and is printed as one line like every other error
        result = app(standalone_mode=False)
        code = result if type(result) is int else 0  # typer.Exit(n) comes back as n
    except typer.TyperException as exc:  # a bad option, argument or value (click's, as Typer ships it)
        context = getattr(exc, "ctx", None)
        where = f" (see `{context.command_path} --help`)" if context is not None else ""
        err_console.print(
            f"[red]error:[/] {' '.join(exc.format_message().split())}{where}", highlight=False, soft_wrap=True
        )
        code = exc.exit_code
    except typer.Abort:  # Ctrl-C at a prompt
        code = 130
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except StockdeskError as exc:
        logger.info("command failed: %s", exc.message, exc_info=True)
        err_console.print(f"[red]error:[/] {' '.join(exc.message.split())}", highlight=False, soft_wrap=True)
        code = exc.exit_code
    except KeyboardInterrupt:
        code = 130
    except Exception as exc:
        logger.exception("unexpected error", extra=FILE_ONLY)
        err_console.print(
            f"[red]unexpected error:[/] {type(exc).__name__}: {(str(exc).splitlines() or [''])[0]} "
            f"(traceback in {log_file})",
            highlight=False,
            soft_wrap=True,
        )
        code = 1
    finally:
        if _container is not None:
            _container.close()
    sys.exit(code)
