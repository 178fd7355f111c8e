"""`stockdesk schedule add|list|remove|run-now|runs` and `stockdesk scheduler` (the long-running loop)."""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from types import FrameType
from zoneinfo import ZoneInfo

import typer
from rich.console import Console
from rich.table import Table

from stockdesk.scheduling.application import ScheduleView, pretend_clock, real_clock
from stockdesk.scheduling.container import SchedulingContainer
from stockdesk.shared.dates import parse_day
from stockdesk.shared.errors import BadRequestException

Get = Callable[[], SchedulingContainer]


def _channels(view: ScheduleView) -> str:
    shown = []
    for channel in view.channels:
        if not channel.configured:
            shown.append(f"{channel.name}: NOT CONFIGURED")
        elif channel.health and channel.health.failing:
            shown.append(f"{channel.name}: FAILING ({channel.health.consecutive_failures} failed in a row)")
        elif channel.health and channel.health.consecutive_failures:
            shown.append(f"{channel.name}: {channel.health.consecutive_failures} failed")
        else:
            shown.append(f"{channel.name}: ok")
    return "; ".join(shown) or "-"


def _last(view: ScheduleView) -> str:
    run = view.last_run
    if run is None:
        return "never run"
    text = f"{run.day.isoformat()} {run.status.value}"
    return f"{text}: {run.reason}" if run.reason else text


def _print_views(views: list[ScheduleView]) -> None:
    table = Table("schedule", "watchlist", "when", "mode", "next fire", "last run", "channels")
    for view in views:
        s = view.schedule
        table.add_row(
            s.name, s.watchlist, f"{s.at} {s.days} {s.tz}", s.mode + (f", paper {s.paper}" * bool(s.paper)),
            view.next_fire.strftime("%Y-%m-%d %H:%M %z"), _last(view), _channels(view),
        )  # fmt: skip
    Console(width=200).print(table)


def _add_commands(app: typer.Typer, get: Get) -> None:
    @app.command("add")
    def add(
        name: str = typer.Argument(..., help="The schedule's name."),
        watchlist: str = typer.Option(..., "--watchlist", help="The watchlist it analyses."),
        at: str = typer.Option(..., "--at", help="Time of day HH:MM, in --tz (e.g. 16:30 after the close)."),
        tz: str = typer.Option(..., "--tz", help="IANA time zone, e.g. Asia/Shanghai, America/New_York."),
        days: str = typer.Option("mon-fri", "--days", help="Days of the week: mon-fri, mon,wed,fri, daily."),
        mode: str = typer.Option(
            "rules", "--mode", help="rules (no LLM), experts (experts and bull/bear debate), full (panel)."
        ),
        notify: str | None = typer.Option(
            None, "--notify", help="Channels of [notify.channels.*], comma list."
        ),
        paper: str | None = typer.Option(None, "--paper", help="A paper book stepped after each run."),
        lang: str = typer.Option("en", "--lang", help="The digest's language: en or zh."),
    ) -> None:
        """Add a schedule: the watchlist analysed at that time on the store's trading days."""
        container = get()
        schedule = container.schedules.add(
            name, watchlist=watchlist, at=at, tz=tz, days=days, mode=mode,
            notify=(notify or "").split(","), paper=paper, language=lang,
        )  # fmt: skip
        view = container.schedules.view(schedule.name)
        typer.echo(
            f"schedule {schedule.name} added: {schedule.watchlist} at {schedule.at} {schedule.days} "
            f"{schedule.tz}; next fire {view.next_fire:%Y-%m-%d %H:%M %z}"
        )

    @app.command("list")
    def list_(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
        """Every schedule: its next fire, its last run, and the health of each of its channels."""
        views = get().schedules.views()
        if as_json:
            typer.echo(json.dumps([v.model_dump(mode="json") for v in views], indent=2, ensure_ascii=False))
            return
        if not views:
            typer.echo("no schedules: add one with `stockdesk schedule add`")
            return
        _print_views(views)

    @app.command("remove")
    def remove(name: str = typer.Argument(...)) -> None:
        """Remove a schedule and its runs' records (the reports written stay)."""
        get().schedules.remove(name)
        typer.echo(f"schedule {name} removed")


def _run_commands(app: typer.Typer, get: Get) -> None:
    @app.command("run-now")
    def run_now(
        name: str = typer.Argument(...),
        as_of: str | None = typer.Option(
            None, "--as-of", help="The day to run (YYYY-MM-DD); default today in the schedule's zone."
        ),
    ) -> None:
        """Run the schedule's day now, as the scheduler would (a day without bars is recorded as skipped)."""
        container = get()
        schedule = container.schedules.get(name)
        day = parse_day(as_of) if as_of else datetime.now(ZoneInfo(schedule.tz)).date()
        typer.echo(container.runs.run_now(schedule.name, day).line())

    @app.command("runs")
    def runs(
        name: str = typer.Argument(...),
        limit: int = typer.Option(20, "--limit", min=1, max=500),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    ) -> None:
        """The schedule's runs, the newest day first."""
        found = get().runs.runs(name, limit)
        if as_json:
            typer.echo(json.dumps([r.model_dump(mode="json") for r in found], indent=2, ensure_ascii=False))
            return
        table = Table("day", "status", "reason", "symbols", "deliveries", "job")
        for run in found:
            sent = ", ".join(f"{d.channel} {d.status}" for d in run.deliveries)
            table.add_row(
                run.day.isoformat(), run.status.value, run.reason or "", str(len(run.rows)), sent,
                (run.job_id or "")[:12],
            )  # fmt: skip
        Console(width=200).print(table)


def build_schedule_cli(get: Get) -> typer.Typer:
    app = typer.Typer(help="Scheduled runs of a watchlist after the close (see `stockdesk scheduler`).")
    _add_commands(app, get)
    _run_commands(app, get)
    return app


def parse_pretend(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise BadRequestException(
            f"--pretend-now {text!r} is not a moment with its offset (e.g. 2020-06-16T16:29:00+08:00)",
            code="BAD_PRETEND_NOW",
        )
    return moment


def _stop_on_sigterm() -> None:
    """SIGTERM stops the process as Ctrl-C does: a run in progress is interrupted (its job resumable)."""

    def handler(_signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def build_scheduler_command(get: Get) -> Callable[..., None]:
    def scheduler(
        pretend_now: str | None = typer.Option(
            None,
            "--pretend-now",
            help="Start the clock at this moment (ISO with offset, e.g. 2020-06-16T16:29:00+08:00) and let "
            "it run at real speed: to rehearse schedules on past data such as the sample store, which "
            "ends in 2020. Runs are real: reports written, digests delivered.",
        ),
        poll: float = typer.Option(2.0, "--poll", min=0.2, max=60.0, help="Seconds between looks."),
        catch_up_hours: float | None = typer.Option(
            None,
            "--catch-up-hours",
            min=0.0,
            max=168.0,
            help="At start, run a fire missed in the last N hours whose day has no run yet (0: never); "
            "default STOCKDESK_SCHEDULER_CATCH_UP_HOURS (6).",
        ),
    ) -> None:
        """Fire the schedules when due, until Ctrl-C or SIGTERM: one line per fire or skip.

        A day is run only if the store has daily bars of the watchlist's market on it (after a sync when
        STOCKDESK_SCHEDULER_SYNC is on); otherwise it is recorded as skipped. Each schedule's day runs
        once, however many schedulers run on the same database; a run whose process died is resumed.
        """
        clock = pretend_clock(parse_pretend(pretend_now)) if pretend_now else real_clock
        catch_up = None if catch_up_hours is None else timedelta(hours=catch_up_hours)
        loop = get().loop(clock, say=lambda line: typer.echo(line), poll_seconds=poll, catch_up=catch_up)
        _stop_on_sigterm()
        try:
            loop.run(threading.Event())
        except KeyboardInterrupt:
            typer.echo("scheduler stopped")

    return scheduler
