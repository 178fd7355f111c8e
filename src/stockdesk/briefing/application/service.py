"""BriefingService (spec 7.1): ticker debates -> ticker scripts -> merge in ticker order -> refine.

Per ticker, in parallel up to `slots` tickers at a time: one panel debate (its JSON is the
worker's main input), the day's 5-minute bars, then one tool-less worker call whose turns are
checked in code (speakers, numbers, sources; a code-written fallback when none survives). Then the
fan-in merge in the GIVEN ticker order (whatever order the tickers finished in), one tool-less
refiner call on the whole script, and its edits applied per id.

A ticker whose debate fails fails the whole briefing, naming the ticker; nothing is half-written.
An unusable worker or refiner answer (LLMOutputParseError) is not a failure: the ticker gets the
fallback turns, the script keeps its unrefined turns, and the audit says why.

A part with fewer than MIN_TURNS_PER_TICKER kept turns, or whose stance is not its debate's
conclusion, is re-asked once with feedback naming the ticker, the count and the stance; what is
still wrong after it, and names no input gives, are recorded as findings (script_checks.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date, timedelta
from functools import partial
from typing import Any

from stockdesk.briefing.application.checks import CheckedTurns, check_worker_turns, fallback_turns
from stockdesk.briefing.application.citations import citable_sources
from stockdesk.briefing.application.edits import apply_edits
from stockdesk.briefing.application.grounding import known_numbers
from stockdesk.briefing.application.merge import before_closing, merge_script
from stockdesk.briefing.application.requests import BriefingRequest, briefing_request
from stockdesk.briefing.application.results import (
    AgentCall,
    BriefingAudit,
    BriefingResult,
    TickerPart,
)
from stockdesk.briefing.application.script_checks import (
    expected_action,
    name_findings,
    reask_feedback,
    reasked_findings,
)
from stockdesk.briefing.domain.dtos import SPEAKERS, MinimalTurn
from stockdesk.briefing.domain.errors import BriefingTickerError
from stockdesk.briefing.domain.ports import (
    IScriptRefinerPort,
    IScriptWorkerPort,
    RefinerInput,
    WorkerInput,
)
from stockdesk.debate.application import PanelDebateService, PanelTools, PriceSummary
from stockdesk.debate.application.panel_context import PRICE_WINDOW_DAYS, summarize_rows
from stockdesk.debate.application.parallel import run_bounded
from stockdesk.shared.errors import BadRequestException, LLMOutputParseError, NotFoundException, one_line

Progress = Callable[[str, str | None], None]  # (stage, ticker): "debate"/"script" per ticker, "refine"
NO_INTRADAY = "no data"


class BriefingService:
    def __init__(
        self,
        panel: PanelDebateService,
        tools: PanelTools,
        worker: IScriptWorkerPort,
        refiner: IScriptRefinerPort,
        *,
        panel_with_rounds: Callable[[int], PanelDebateService],
        slots: int = 2,
    ):
        """`panel_with_rounds(n)`: a panel like `panel` that stops at n rounds (`--max-rounds`)."""
        self._panel = panel
        self._panel_with_rounds = panel_with_rounds
        self._tools = tools
        self._worker = worker
        self._refiner = refiner
        self.slots = max(1, slots)

    # ---- the whole run (the CLI) -------------------------------------------------------------------
    def run(
        self,
        day: date,
        tickers: str | Sequence[str],
        base_script: Any = None,
        on_progress: Progress | None = None,
        *,
        max_rounds: int | None = None,
    ) -> BriefingResult:
        request = self.request(day, tickers, base_script, max_rounds)
        self.preflight(request)
        calls = [partial(self.ticker_part, request, ticker, on_progress) for ticker in request.tickers]
        outcomes = run_bounded(calls, slots=self.slots, name="briefing")
        parts: dict[str, TickerPart] = {}
        for ticker, outcome in zip(request.tickers, outcomes, strict=True):
            if isinstance(outcome, Exception):
                raise (
                    outcome
                    if isinstance(outcome, BriefingTickerError)
                    else BriefingTickerError(ticker, outcome)
                )
            parts[ticker] = outcome
        return self.finish(request, parts, on_progress)

    # ---- the steps (the durable job runs them as tasks) --------------------------------------------
    def request(
        self, day: date, tickers: str | Sequence[str], base_script: Any = None, max_rounds: int | None = None
    ) -> BriefingRequest:
        """Check the input (400s: INVALID_TICKERS, BAD_BASE_SCRIPT, INVALID_MAX_ROUNDS) before any work."""
        request = briefing_request(day, tickers, base_script, max_rounds)
        if max_rounds is not None and max_rounds < self._panel.min_rounds:
            raise BadRequestException(
                f"max_rounds must be at least the panel's minimum of {self._panel.min_rounds} rounds "
                f"(got {max_rounds})",
                code="INVALID_MAX_ROUNDS",
            )
        return request

    def preflight(self, request: BriefingRequest) -> None:
        """Every ticker needs daily bars in the debate's price window; all missing ones are named (404)."""
        start = (request.date - timedelta(days=PRICE_WINDOW_DAYS)).isoformat()
        end = request.date.isoformat()
        missing = [
            ticker
            for ticker in request.tickers
            if not self._tools.get_ohlcv(ticker, start, end, interval="1d", as_of=request.date).get("rows")
        ]
        if missing:
            raise NotFoundException(
                f"no daily bars for {', '.join(missing)} from {start} to {end} in the store "
                "(unknown ticker or no data: import or sync it first)",
                code="UNKNOWN_TICKER",
            )

    def ticker_part(
        self, request: BriefingRequest, ticker: str, on_progress: Progress | None = None
    ) -> TickerPart:
        """One ticker: debate -> 5-minute bars -> worker -> checks (-> fallback turns)."""
        try:
            debate = self._panel_for(request).run(ticker, request.date, []).artifact
        except Exception as exc:
            raise BriefingTickerError(ticker, exc) from exc
        _notify(on_progress, "debate", ticker)
        rows, summary, note = self._intraday(ticker, request.date)
        shown = before_closing(request.base_script)  # what the ticker parts follow
        sources = citable_sources(debate, shown)
        job = WorkerInput(
            ticker=ticker, date=request.day, index=request.tickers.index(ticker) + 1,
            total=len(request.tickers), tickers=request.tickers, base_script=shown,
            debate=debate, intraday_rows=rows, intraday_summary=summary, intraday_note=note, sources=sources,
        )  # fmt: skip
        base = shown.model_dump(mode="json") if shown else None
        known = known_numbers(debate, rows, summary.model_dump() if summary else None, base)
        expected = expected_action(debate)
        checked, call = self._write(ticker, job, known)
        reask: AgentCall | None = None
        wrong = reasked_findings(ticker, checked.turns, expected) if call.error is None else []
        if wrong:
            second, reask = self._write(ticker, job, known, reask_feedback(ticker, wrong))
            if reask.error is None:
                checked = second
        turns = checked.turns or fallback_turns(ticker, debate)
        findings = [*reasked_findings(ticker, turns, expected), *name_findings(ticker, turns, job)]
        _notify(on_progress, "script", ticker)
        return TickerPart(
            ticker=ticker, debate=debate, turns=turns, rejected=checked.rejected,
            dropped_sources=checked.dropped_sources, fallback=not checked.turns, worker=call, reask=reask,
            findings=findings, intraday_rows=len(rows),
        )  # fmt: skip

    def _write(
        self, ticker: str, job: WorkerInput, known: list[float], feedback: str | None = None
    ) -> tuple[CheckedTurns, AgentCall]:
        """One worker call (a re-ask: with `feedback`) and its per-turn checks; an unusable answer
        leaves no turn and says why."""
        try:
            answer = self._worker.answer(job, feedback)
        except LLMOutputParseError as exc:
            return CheckedTurns(), AgentCall(output=exc.raw_output, error=one_line(exc))
        except Exception as exc:
            raise BriefingTickerError(ticker, exc) from exc
        call = AgentCall(input=answer.input, output=answer.output, tokens=answer.tokens)
        return check_worker_turns(ticker, answer.parsed, job.sources, known), call

    def finish(
        self, request: BriefingRequest, parts: Mapping[str, TickerPart], on_progress: Progress | None = None
    ) -> BriefingResult:
        """Merge in ticker order, one refiner call, its edits applied per id."""
        merged = merge_script(
            request.day, request.tickers, request.base_script, {t: parts[t].turns for t in request.tickers}
        )
        base_speakers = request.base_script.speakers() if request.base_script else []
        speakers = list(dict.fromkeys([*SPEAKERS, *base_speakers]))
        job = RefinerInput(
            scripts=[MinimalTurn(id=t.id, speaker=t.speaker, text=t.text) for t in merged.script.scripts],
            tickers=request.tickers,
            sections=merged.sections,
            speakers=speakers,
        )
        try:
            answer = self._refiner.answer(job)
        except LLMOutputParseError as exc:
            call, edits = AgentCall(output=exc.raw_output, error=one_line(exc)), []
        else:
            call = AgentCall(input=answer.input, output=answer.output, tokens=answer.tokens)
            edits = answer.parsed.edits
        script, decisions = apply_edits(merged.script, edits, speakers)
        _notify(on_progress, "refine", None)
        ordered = [parts[t] for t in request.tickers]
        audit = BriefingAudit(
            workers={p.ticker: p.worker for p in ordered},
            refiner=call,
            dropped_sources={p.ticker: p.dropped_sources for p in ordered},
            rejected_turns=[r for p in ordered for r in p.rejected],
            fallback_tickers=[p.ticker for p in ordered if p.fallback],
            edits=decisions,
            reasks={p.ticker: p.reask for p in ordered if p.reask is not None},
            findings=[f for p in ordered for f in p.findings],
        )
        debates = {p.ticker: p.debate for p in ordered}
        return BriefingResult(script=script, sections=merged.sections, debates=debates, audit=audit)

    # ---- helpers -----------------------------------------------------------------------------------
    def _panel_for(self, request: BriefingRequest) -> PanelDebateService:
        wanted = request.max_rounds
        if wanted is None or wanted == self._panel.max_rounds:
            return self._panel
        return self._panel_with_rounds(wanted)

    def _intraday(self, ticker: str, day: date) -> tuple[list[dict[str, Any]], PriceSummary | None, str]:
        """The day's 5-minute rows (with a code summary), or none and why (spec 4.2: "no data")."""
        iso = day.isoformat()
        answer = self._tools.get_ohlcv(ticker, iso, iso, interval="5m", as_of=day)
        rows = [r for r in answer.get("rows") or [] if r.get("close") is not None]
        if not rows:
            reason = answer.get("error")
            return [], None, f"{NO_INTRADAY} ({reason})" if reason else NO_INTRADAY
        return rows, summarize_rows(rows), ""


def _notify(on_progress: Progress | None, stage: str, ticker: str | None) -> None:
    if on_progress is not None:
        on_progress(stage, ticker)
