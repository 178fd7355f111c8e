"""`stockdesk track` (score the verdict ledger's matured entries) and `stockdesk track verify`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from stockdesk.evaluation.application.formatting import num, pct
from stockdesk.evaluation.application.track_service import TrackService
from stockdesk.evaluation.domain.track import TrackConfig, TrackReport
from stockdesk.evaluation.presentation.cli import parse_horizons
from stockdesk.evaluation.presentation.report import check_out
from stockdesk.evaluation.presentation.track_report import KINDS, groups, write_track
from stockdesk.shared.errors import BadRequestException


def track_config(**values: object) -> TrackConfig:
    """The config, or one 400 INVALID_TRACK naming the first problem (CLI and REST alike)."""
    try:
        return TrackConfig.model_validate(values)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "config"
        raise BadRequestException(f"{where}: {first['msg']}", code="INVALID_TRACK") from exc


def scores_table(report: TrackReport) -> Table:
    table = Table(title="track record (live and retrospective never mixed)")
    for column in ("kind", "group", "h", "matured", "hit", "excess", "IC", "Brier skill", "ECE", "uncal."):
        table.add_column(column, justify="left" if column in ("kind", "group") else "right", no_wrap=True)
    for kind in KINDS:
        scores = getattr(report, kind)
        if not scores.get("entries"):
            continue
        for group, by_h in groups(scores):
            for h, m in by_h.items():
                skill = num(m["brier_skill"], 2) if m["calibrated"] else "uncal."
                table.add_row(
                    kind, group, h, str(m["matured"]), pct(m["hit_rate"]), pct(m["mean_excess"], 2),
                    num(m["rank_ic"]["mean"]), skill, num(m["ece"]) if m["calibrated"] else "uncal.",
                    str(m["uncalibrated"]),
                )  # fmt: skip
    return table


def build_track_cli(get_service: Callable[[], TrackService]) -> typer.Typer:
    app = typer.Typer(help="The verdict ledger's track record and its hash chain.")

    @app.callback(invoke_without_command=True)
    def track(
        ctx: typer.Context,
        horizons: str = typer.Option("5,20,60", "--horizons", help="Forward horizons in trading days."),
        mode: str | None = typer.Option(
            None, "--mode", help="Only entries of this mode: rules | experts | full."
        ),
        benchmark: str | None = typer.Option(
            None, "--benchmark", help="A stored symbol (default: equal-weight index of every stored symbol)."
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the JSON (the contract)."),
        out: Path | None = typer.Option(None, "--out", help="track.json, track.html or track.pdf."),
    ) -> None:
        """Score every matured ledger entry with evaluate's fills and costs; live and retrospective apart."""
        if ctx.invoked_subcommand is not None:
            return
        if out is not None:
            check_out(out)
        config = track_config(
            horizons=parse_horizons(horizons),
            mode=mode,
            benchmark=benchmark.strip().upper() if benchmark else None,
        )
        report = get_service().run(config)
        if as_json:
            typer.echo(report.model_dump_json(indent=2))
        else:
            typer.echo(report.headline)
            if report.ledger["entries"]:
                screen = Console()
                (screen if screen.is_terminal else Console(width=120)).print(scores_table(report))
        if out is not None:
            written = write_track(report, out)
            Console(stderr=True).print(f"track record written to {written.resolve()}", highlight=False)

    @app.command("verify")
    def verify(as_json: bool = typer.Option(False, "--json", help="Print the check as JSON.")) -> None:
        """Recompute the ledger's hash chain; exit 1 naming the first edited or missing entry."""
        status = get_service().verify()
        typer.echo(status.model_dump_json(indent=2) if as_json else status.message)
        if not status.ok:
            raise typer.Exit(1)

    return app
