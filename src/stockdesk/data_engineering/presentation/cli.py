"""`stockdesk data ...` commands: importers, show, (later) sync and export."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import date, datetime
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from stockdesk.data_engineering.application.import_service import ImportResult
from stockdesk.data_engineering.container import DataEngineeringContainer
from stockdesk.data_engineering.domain.exceptions import ImportValidationError
from stockdesk.data_engineering.infrastructure.importers import ImportGroup
from stockdesk.data_engineering.infrastructure.importers.tushare_csv import read_tushare_folder
from stockdesk.shared.errors import BadRequestException

console = Console()
err = Console(stderr=True)


def progress_bar() -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[current]}"),
        console=err,
        transient=True,
    )


def run_import(
    container: DataEngineeringContainer, groups: Iterable[ImportGroup], label: str
) -> tuple[list[ImportResult], list[ImportValidationError]]:
    """Import each group in its own transaction; a rejected group does not stop the others."""
    groups = list(groups)
    results: list[ImportResult] = []
    rejected: list[ImportValidationError] = []
    with progress_bar() as progress:
        task = progress.add_task(label, total=len(groups), current="")
        for group in groups:
            progress.update(task, current=group.source[:60])
            try:
                results.append(container.import_service.import_frames(group.source, group.frames))
            except ImportValidationError as exc:
                rejected.append(exc)
            progress.advance(task)
    return results, rejected


def report_import(
    container: DataEngineeringContainer,
    results: list[ImportResult],
    rejected: list[ImportValidationError],
    as_json: bool,
) -> None:
    """Print a summary; write every rejection reason to a report file; exit 1 if anything was rejected."""
    report_path = None
    if rejected:
        reports = container.settings.home / "reports"
        reports.mkdir(parents=True, exist_ok=True)
        report_path = reports / f"import-rejections-{datetime.now():%Y%m%d-%H%M%S}.json"
        report_path.write_text(
            json.dumps(
                [{"source": r.source, "problems": [p.model_dump() for p in r.problems]} for r in rejected],
                ensure_ascii=False,
                indent=2,
            )
        )
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "imported": [r.model_dump() for r in results],
                    "rejected": [{"source": r.source, "message": r.message} for r in rejected],
                    "rejection_report": str(report_path) if report_path else None,
                },
                ensure_ascii=False,
            )
        )
    else:
        table = Table("source", "table", "rows", "new", title="import")
        for result in results:
            for kind, rows in result.rows.items():
                table.add_row(result.source[:70], kind, str(rows), str(result.new_rows.get(kind, 0)))
        console.print(table)
        for rejection in rejected:
            err.print(f"[red]rejected:[/] {rejection.message}", highlight=False, soft_wrap=True)
        if report_path:
            err.print(f"every reason per row: {report_path}", highlight=False)
    if rejected:
        raise typer.Exit(1)


def _parse_day(value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise BadRequestException(f"'{value}' is not a date (YYYY-MM-DD)", code="INVALID_DATE") from exc


def build_data_cli(get_container: Callable[[], DataEngineeringContainer]) -> typer.Typer:
    app = typer.Typer(help="Market data: import, sync, inspect.", no_args_is_help=True)
    import_app = typer.Typer(
        help="Import files (all-or-nothing per file, reruns change nothing).", no_args_is_help=True
    )
    app.add_typer(import_app, name="import")

    @import_app.command("tushare-csv")
    def import_tushare(
        folder: Path = typer.Argument(..., help="Folder of Tushare CSV exports."),  # noqa: B008
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """Tushare exports: daily_*, daily_basic_*, adj_factor_*, fina_indicator_*, universe.csv."""
        container = get_container()
        results, rejected = run_import(container, read_tushare_folder(folder), "importing Tushare CSV")
        report_import(container, results, rejected, as_json)

    @app.command("show")
    def show(
        symbol: str = typer.Argument(..., help="e.g. 600519.SH, 000338.SZ, AAPL"),
        as_of: str | None = typer.Option(None, "--as-of", help="YYYY-MM-DD; default today."),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """Basic info, coverage and latest values of one symbol, as of a date."""
        summary = get_container().summary.execute(symbol, _parse_day(as_of))
        if as_json:
            typer.echo(summary.model_dump_json(indent=2))
            return
        s = summary.security
        console.print(
            f"[bold]{s.symbol}[/] {s.name or ''} · {s.industry or '-'} · "
            f"{s.market}/{s.exchange} · {s.currency}"
        )
        console.print(f"as of {summary.as_of}")
        table = Table("dataset", "count", "from", "to")
        table.add_row("daily bars", str(summary.bars.count), str(summary.bars.first), str(summary.bars.last))
        table.add_row(
            "valuations",
            f"{summary.valuations.count} ({summary.derived_valuations} derived)",
            str(summary.valuations.first),
            str(summary.valuations.last),
        )
        periods = summary.financial_periods
        table.add_row(
            "financial periods",
            str(len(periods)),
            periods[-1] if periods else "-",
            periods[0] if periods else "-",
        )
        console.print(table)
        if summary.latest_valuation:
            v = summary.latest_valuation
            console.print(
                f"latest valuation {v.trade_date}: close={v.close} pe_ttm={v.pe_ttm} pb={v.pb} "
                f"ps_ttm={v.ps_ttm} total_mv={v.total_mv}"
            )
        if summary.latest_financial:
            f = summary.latest_financial
            console.print(
                f"latest report {f.end_date} ({f.report_type}, announced {f.ann_date}): "
                f"eps={f.eps} bps={f.bps} roe={f.roe} gross margin={f.grossprofit_margin}%"
            )

    return app
