"""`stockdesk briefing`: ticker debates -> a host/analyst script (JSON, optionally Markdown and a WAV).

Everything the command is given is checked before any LLM call (one-line errors, exit 2). Files
are written only after the whole run succeeded, each atomically (temp file + replace): the script
JSON (spec 7.4 shape), `<stem>.audit.json` beside it (the debates, the worker and refiner prompts
and answers, dropped sources, rejected turns and edits), the Markdown and the audio if asked.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from stockdesk.briefing.application import BriefingResult, BriefingService, normalise_tickers
from stockdesk.briefing.infrastructure.audio.espeak import MISSING_MESSAGE, espeak_available, synthesize
from stockdesk.briefing.presentation.markdown import render_markdown
from stockdesk.shared.dates import parse_day
from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.files import write_atomic
from stockdesk.shared.tasks import jsonable


def read_base_file(path: Path) -> Any:
    """The JSON of a `--base-script` file; unreadable or not JSON is a one-line BAD_BASE_SCRIPT."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise BadRequestException(
            f"base script: cannot read {path}: {reason}", code="BAD_BASE_SCRIPT"
        ) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadRequestException(
            f"base script: {path} is not JSON ({exc.msg} at line {exc.lineno})", code="BAD_BASE_SCRIPT"
        ) from exc


def _suffix(path: Path | None, option: str, suffix: str) -> None:
    if path is not None and path.suffix.lower() != suffix:
        raise BadRequestException(f"{option} must end in {suffix}, got {path.name!r}", code="BAD_OUTPUT")


class _Display:
    """One row per ticker (debate, then script) and one for the refiner."""

    def __init__(self, tickers: list[str], console: Console):
        self.progress = Progress(
            TextColumn("{task.description:<10}"),
            BarColumn(bar_width=20),
            TextColumn("{task.fields[state]}"),
            TimeElapsedColumn(),
            console=console,
        )
        self._rows = {t: self.progress.add_task(t, total=2, state="debating") for t in tickers}
        self._refine = self.progress.add_task("refine", total=1, state="waiting for the tickers")
        self._scripts = 0

    def __call__(self, stage: str, ticker: str | None) -> None:
        if stage == "debate" and ticker in self._rows:
            self.progress.update(self._rows[ticker], completed=1, state="debate done, writing the script")
        elif stage == "script" and ticker in self._rows:
            self.progress.update(self._rows[ticker], completed=2, state="script done")
            self._scripts += 1
            if self._scripts == len(self._rows):
                self.progress.update(self._refine, state="refining the transitions")
        elif stage == "refine":
            self.progress.update(self._refine, completed=1, state="done")


def summary_lines(result: BriefingResult) -> list[str]:
    audit = result.audit
    rejected_turns: dict[str, int] = {}
    for turn in audit.rejected_turns:
        rejected_turns[turn.ticker] = rejected_turns.get(turn.ticker, 0) + 1
    lines = [f"briefing {result.script.date}: {len(result.script.scripts)} turns"]
    for section in result.sections:
        count = section.end_id - section.start_id + 1
        notes = [f"{audit.dropped_sources.get(section.ticker, 0)} sources dropped"]
        notes.append(f"{rejected_turns.get(section.ticker, 0)} turns rejected")
        if section.ticker in audit.fallback_tickers:
            notes.append("fallback turns from the conclusion")
        lines.append(
            f"  {section.ticker}: {count} turns (ids {section.start_id}-{section.end_id}); {', '.join(notes)}"
        )
    applied = sum(e.status == "applied" for e in audit.edits)
    rejected = result.rejected_edits()
    reasons = sorted({e.reason or "" for e in rejected})
    refiner = f"refiner: {applied} edits applied, {len(rejected)} rejected" + (
        f" ({', '.join(reasons)})" if reasons else ""
    )
    if audit.refiner.error:
        refiner += f"; its answer was unusable: {audit.refiner.error}"
    return [*lines, refiner]


def build_briefing_command(get_service: Callable[[], BriefingService | None]) -> Callable[..., None]:
    def briefing(
        day: str = typer.Option(..., "--date", help="The show's date, YYYY-MM-DD."),
        tickers: str = typer.Option(
            ..., "--tickers", help="1-10 tickers in show order, e.g. AAPL,NVDA,GOOG."
        ),
        base_script: Path | None = typer.Option(
            None, "--base-script", help="The opening/theme script JSON (chapter + scripts) to continue."
        ),
        max_rounds: int | None = typer.Option(None, "--max-rounds", help="Debate rounds at most per ticker."),
        out: Path = typer.Option(..., "--out", help="script.json (spec 7.4 shape)."),
        md: Path | None = typer.Option(None, "--md", help="Also write the script as Markdown."),
        audio: Path | None = typer.Option(None, "--audio", help="Also speak it to a WAV (needs espeak-ng)."),
    ) -> None:
        """Debate each ticker, write a host/analyst script per ticker, merge in order, refine."""
        _suffix(out, "--out", ".json")
        _suffix(md, "--md", ".md")
        _suffix(audio, "--audio", ".wav")
        parsed = parse_day(day)
        assert parsed is not None
        names = normalise_tickers(tickers)
        base = read_base_file(base_script) if base_script is not None else None
        service = get_service()
        if service is None:
            raise BadRequestException(
                "briefings need the panel debate, which is not configured in this process",
                code="BRIEFING_NOT_CONFIGURED",
            )
        request = service.request(parsed, names, base, max_rounds)  # bad input fails before the display
        service.preflight(request)  # unknown tickers too
        console = Console(stderr=True)
        display = _Display(request.tickers, console)
        with display.progress:
            result = service.run(parsed, request.tickers, request.base_script, display, max_rounds=max_rounds)
        spoken = None
        if audio is not None and espeak_available():
            spoken = synthesize(result.script.scripts, audio)  # the last step that can fail: files after it
        written = [write_atomic(out, result.script.model_dump_json(indent=2) + "\n")]
        audit = {"debates": result.debates, "sections": result.sections, "audit": result.audit}
        audit_path = out.with_name(out.stem + ".audit.json")
        written.append(
            write_atomic(audit_path, json.dumps(jsonable(audit), indent=2, ensure_ascii=False) + "\n")
        )
        if md is not None:
            written.append(write_atomic(md, render_markdown(result.script)))
        for line in summary_lines(result):
            console.print(line, highlight=False)
        if audio is not None and spoken is None:
            console.print(MISSING_MESSAGE, highlight=False, soft_wrap=True)
        if spoken is not None:
            written.append(spoken.path)
            console.print(f"audio: {spoken.turns} turns, {spoken.seconds:.1f} s", highlight=False)
        for path in written:
            typer.echo(f"written: {path.resolve()}")

    return briefing
