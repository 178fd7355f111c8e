"""`stockdesk analyze SYMBOL`: the main job — experts, debate, verdict, and a readable report; and
`stockdesk retry SESSION`: the same run over a stored session's failed parts (as REST's retry does),
reusing what it finished, with the same live view and report."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer
from rich.console import Console
from rich.live import Live
from rich.markdown import Markdown

from stockdesk.coordinator.application import (
    DebateModeName,
    ResearchCoordinatorService,
    ResearchRequest,
    ResearchSession,
    parse_experts,
)
from stockdesk.coordinator.presentation.cli.live_view import LiveView
from stockdesk.coordinator.presentation.reports.render import (
    check_out,
    render_report,
    report_language,
    write_report,
)
from stockdesk.shared.dates import parse_day
from stockdesk.shared.errors import BadRequestException


def build_analyze_command(
    get_service: Callable[[], ResearchCoordinatorService],
    track_record: Callable[[], str] | None = None,
) -> Callable[..., None]:
    """`track_record()`: the desk's one-line live track record (the verdict ledger's), printed in
    the report under the verdict; the composition root wires it (None: left out)."""

    def analyze(
        symbol: str = typer.Argument(..., help="Stock symbol, e.g. 600519.SH, 000338.SZ or AAPL."),
        as_of: str | None = typer.Option(None, "--as-of", help="Analysis date YYYY-MM-DD (point in time)."),
        experts: str | None = typer.Option(
            None, "--experts", help="Comma list: valuation,technical,financial,macro,catalyst (default all)."
        ),
        skip_debate: bool = typer.Option(False, "--skip-debate", help="Experts only: no debate, no verdict."),
        debate: DebateModeName = typer.Option(DebateModeName.BULL_BEAR, "--debate", help="Debate mode."),
        rules_only: bool = typer.Option(
            False,
            "--rules-only",
            help="No LLM: each expert's code-only signal and the rules verdict (seconds).",
        ),
        samples: int = typer.Option(
            1,
            "--samples",
            min=1,
            max=9,
            help="Run the judge N times with different seeds: verdict stability.",
        ),
        out: Path | None = typer.Option(
            None, "--out", help="Write the report: r.md, r.html, r.pdf, r.docx (Word) or r.json (all of it)."
        ),
        reflection: bool = typer.Option(
            False,
            "--reflection",
            envvar="STOCKDESK_JUDGE_REFLECTION",
            help="Show the judge this symbol's matured past verdicts and their outcomes (off: "
            "`evaluate --reflection` has not shown that it helps).",
        ),
        lang: str = typer.Option("en", "--lang", help="The report's language: en or zh."),
        ignore_holdings: bool = typer.Option(
            False,
            "--ignore-holdings",
            help="Analyse as if the symbol were not held: no holder's action or plan, and the judge "
            "is not told about the position.",
        ),
    ) -> None:
        """Run the research pipeline on one symbol and print (or write) the report. A symbol you
        hold (`stockdesk holdings`) also gets the holder's action (ADD/HOLD/TRIM/EXIT) and plan."""
        report_language(lang)  # a bad language fails before any work, as a bad suffix does
        if out:
            check_out(out)  # a bad suffix, or a PDF without Chromium, fails before any work
        if reflection and (rules_only or skip_debate):
            raise BadRequestException(
                "--reflection gives lessons to the LLM judge; --rules-only and --skip-debate run none",
                code="NO_JUDGE",
            )
        request = ResearchRequest(
            symbol=symbol,
            as_of=parse_day(as_of),
            experts=parse_experts(experts),
            skip_debate=skip_debate,
            debate_mode=debate,
            rules_only=rules_only,
            judge_samples=samples,
            reflection=reflection,
            ignore_holdings=ignore_holdings,
        )
        service = get_service()
        checked = service.check_date(request)  # a date outside the stored bars: one line, exit 2
        if checked.clamped and checked.as_of:
            typer.echo(f"no --as-of: analysing as of {checked.as_of}, the newest stored bar", err=True)
        _run_and_report(service, request, None, out, lang, track_record)

    return analyze


def build_retry_command(
    get_service: Callable[[], ResearchCoordinatorService],
    track_record: Callable[[], str] | None = None,
) -> Callable[..., None]:
    """`stockdesk retry SESSION`: REST's `POST /coordinator/research/{id}/retry` on the command line."""

    def retry(
        session_id: str = typer.Argument(..., help="The session whose failed parts to run again."),
        out: Path | None = typer.Option(
            None, "--out", help="Write the report: report.md, report.html or report.json (full session)."
        ),
        lang: str = typer.Option("en", "--lang", help="The report's language: en or zh."),
    ) -> None:
        """Run a session's failed experts (or its failed debate or verdict) again, reusing the rest;
        the new session names its parent. An unknown session, or one with nothing failed, is one line
        and exit 2."""
        report_language(lang)
        if out:
            check_out(out)  # before any work, as analyze does
        service = get_service()
        parent, request = service.retry_request(session_id.strip())  # 404 / NOTHING_TO_RETRY first
        typer.echo(f"retrying session {parent.id}: reusing what it finished", err=True)
        _run_and_report(service, request, parent, out, lang, track_record)

    return retry


def _run_and_report(
    service: ResearchCoordinatorService,
    request: ResearchRequest,
    parent: ResearchSession | None,
    out: Path | None,
    lang: str,
    track_record: Callable[[], str] | None,
) -> None:
    """Run `request` (a retry of `parent` when given) under the live view, then print or write the
    report: what `analyze` and `retry` both end with."""
    nodes = [e.value for e in request.experts] + ["aggregator_node", "debate_node", "judge_node"]
    console = Console(stderr=True)
    view = LiveView(nodes, service.usage)

    def started(session: ResearchSession) -> None:
        view.session_id = session.id

    with Live(view, console=console, refresh_per_second=4, transient=False):
        session = service.run(request, observer=view, on_start=started, parent=parent)
    if not console.is_terminal:
        console.line()  # the last frame ends without a newline when stderr is not a terminal
    console.print(
        f"session {session.id}: {session.status.value} in {session.duration_seconds:.1f}s, "
        f"{session.llm_calls} LLM calls, {session.tokens:,} tokens",
        highlight=False,
    )
    line = track_record() if track_record is not None and session.verdict else None
    if out is None:
        Console().print(Markdown(render_report(session, "md", track_record=line, lang=lang)))
        return
    written = write_report(session, out, track_record=line, lang=lang)  # atomically, with chart images
    typer.echo(f"report written to {written[0].resolve()}")
