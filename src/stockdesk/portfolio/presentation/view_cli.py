"""`stockdesk portfolio --watchlist NAME | --holdings --as-of D`: the portfolio view (target weights
from the day's rules verdicts, the trades to get there, the risk of both books) as a table, or
written with `--out` (.json, .html, .pdf). Bad input is one line and exit 2, before any work.

The view is a job of the one job system (kind `portfolio_view`) run in the foreground: a progress
line on stderr (`verdicts 3/12`), and Ctrl-C leaves it interrupted with its finished names kept;
the same command again (or `stockdesk jobs resume ID`) computes only the names left."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from stockdesk.portfolio.application import PortfolioView
from stockdesk.portfolio.application.view_jobs import PortfolioViewJobs, ViewJob
from stockdesk.portfolio.application.view_service import DEFAULT_CAPITAL, PortfolioViewService
from stockdesk.portfolio.presentation.report import check_out, write_view
from stockdesk.portfolio.presentation.shown import ShownView, shown_view
from stockdesk.shared.dates import parse_day
from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.task_progress import follow
from stockdesk.shared.tasks import TaskCounts
from stockdesk.shared.wording import LANGUAGES, say

console = Console(soft_wrap=True)
err = Console(stderr=True)


def _print(s: ShownView) -> None:
    t = lambda key: say(key, s.lang)  # noqa: E731
    console.print(s.title, style="bold")
    console.print(s.intro, highlight=False)
    console.print(s.limits, highlight=False)
    risk = Table(title=t("portfolio.report.risk"))
    risk.add_column(t("portfolio.report.book"))
    for label in s.risk_labels:
        risk.add_column(label, justify="right")
    risk.add_row(t("portfolio.report.current"), *s.current)
    risk.add_row(t("portfolio.report.target"), *s.target)
    console.print(risk)
    names = Table(title=t("portfolio.report.allocation"))
    for column in ("portfolio.col.symbol", "portfolio.col.action", "portfolio.col.probability"):
        names.add_column(t(column))
    for label in s.name_labels:
        names.add_column(label, justify="right")
    for n in s.names:
        names.add_row(n.symbol, n.action, n.probability, *[f.value for f in n.figures])
    console.print(names)
    console.print(t("portfolio.col.why"), style="bold")
    for n in s.names:
        console.print(f"{n.symbol}: {'; '.join(n.reasons)}", highlight=False)
    if not s.trades:
        console.print(t("portfolio.report.no_trades"))
    else:
        trades = Table(title=t("portfolio.report.trades"))
        trades.add_column(t("portfolio.col.symbol"))
        trades.add_column(t("portfolio.col.side"))
        for label in s.trade_labels:
            trades.add_column(label, justify="right")
        trades.add_column(t("portfolio.col.note"))
        for r in s.trades:
            trades.add_row(r.symbol, r.side, *[f.value for f in r.figures], r.note)
        console.print(trades)
        console.print(s.total_costs, highlight=False)
    for line in s.notes:
        console.print(f"- {line}", highlight=False)


def run_in_foreground(jobs: PortfolioViewJobs, job_id: str) -> PortfolioView:
    """The job's unfinished names, then the view, with a progress line on stderr; on Ctrl-C a
    one-line hint to go on (the job is left interrupted, its finished names kept)."""
    progress, update = follow(err, "verdicts")

    def advance(job: ViewJob) -> None:
        left = job.total - job.done - job.failed
        update(TaskCounts(done=job.done, failed=job.failed, pending=left, total=job.total))

    try:
        with progress:
            advance(jobs.status(job_id))
            jobs.execute(job_id, on_progress=advance)
    except KeyboardInterrupt:
        err.print(
            f"interrupted: run the same command again, or `stockdesk jobs resume {job_id[:12]}`, "
            "to compute the names left",
            highlight=False,
        )
        raise
    return jobs.result(job_id)


def resume_in_foreground(jobs: PortfolioViewJobs, job_id: str) -> None:
    """`stockdesk jobs resume` of a portfolio view: the names left, then the table (in English)."""
    _print(shown_view(run_in_foreground(jobs, job_id), "en"))


def build_portfolio_command(
    get_service: Callable[[], PortfolioViewService], get_jobs: Callable[[], PortfolioViewJobs]
) -> Callable[..., None]:
    def portfolio(
        as_of: str = typer.Option(..., "--as-of", help="YYYY-MM-DD: nothing after it is read."),
        watchlist: str | None = typer.Option(None, "--watchlist", help="A watchlist's name."),
        holdings: bool = typer.Option(False, "--holdings", help="The holdings instead of a watchlist."),
        capital: float = typer.Option(DEFAULT_CAPITAL, "--capital", help="A watchlist's book value."),
        cash: float = typer.Option(0.0, "--cash", help="Cash beside the holdings (with --holdings)."),
        out: Path | None = typer.Option(None, "--out", help="p.json, p.html or p.pdf."),
        lang: str = typer.Option("en", "--lang", help="en or zh: the table's and the report's language."),
    ) -> None:
        """Target weights from the day's rules verdicts (caps, a risk budget), the trades to get there,
        and the risk of the current and the target book."""
        if lang not in LANGUAGES:
            raise BadRequestException(
                f"--lang must be one of {', '.join(LANGUAGES)}", code="INVALID_LANGUAGE"
            )
        if out is not None:
            check_out(out)
        day = parse_day(as_of, "as_of")
        request = get_service().check(day, watchlist=watchlist, holdings=holdings, capital=capital, cash=cash)
        jobs = get_jobs()
        view = run_in_foreground(jobs, jobs.start(request).job_id)
        if out is None:
            _print(shown_view(view, lang))
            return
        written = write_view(view, out, lang)
        err.print(f"portfolio view written to {written.resolve()}")

    return portfolio
