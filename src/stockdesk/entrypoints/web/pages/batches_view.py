"""The batch pages' view models: the start form, a batch's progress panel and its ranked index.

The form is read into the REST body (`BatchBody`), so the page starts exactly what
`POST /api/v1/batch/analyses` starts, through the same `BatchLauncher`. What the form refuses
itself (no symbols, text that is no symbol, no date, a malformed date, no expert) gets its own
code; the launcher's refusals (too many symbols, unknown symbols, a date outside the stored bars)
keep theirs. `refusal_lines` words each known code from the catalogue, with the refusal's details.
The index rows are the service's (`BatchAnalysisService.rows`: ranked by action, then confidence),
worded as the batch's own index words them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from pydantic import ValidationError

from stockdesk.coordinator.application.batch_analysis import JOB_KIND, BatchAnalysisConfig, BatchRow
from stockdesk.coordinator.presentation.batch_jobs import BatchBody
from stockdesk.entrypoints.web.pages.analyses_view import DEBATE_CHOICES, EXPERT_CHOICES, SKIP_DEBATE
from stockdesk.entrypoints.web.pages.form_text import refused, split_list, stamp
from stockdesk.entrypoints.web.pages.jobs_view import CountedJob, JobPanel
from stockdesk.shared.dates import parse_day
from stockdesk.shared.errors import BadRequestException, StockdeskError
from stockdesk.shared.symbol_text import SYMBOL_PATTERN
from stockdesk.shared.tasks import JobRecord, JobStatus, TaskCounts

SYMBOL = re.compile(SYMBOL_PATTERN)
# a refusal's code -> the catalogue key that words it (its values are the refusal's details)
ERROR_KEYS = {
    "NO_SYMBOLS": "batches.error.no_symbols",
    "INVALID_SYMBOL": "batches.error.invalid_symbol",
    "UNKNOWN_SYMBOL": "batches.error.unknown_symbol",
    "AS_OF_REQUIRED": "batches.error.as_of_required",
    "INVALID_DATE": "batches.error.invalid_date",
    "NO_EXPERTS": "batches.error.no_experts",
    "UNIVERSE_TOO_LARGE": "batches.error.too_many",
}
AS_OF_KEY = "analyze.error.as_of.{side}"  # one line per symbol outside its stored bars, as Analyze says it


@dataclass
class BatchForm:
    """What the start form holds (as typed), so a refused form comes back filled in."""

    symbols: str = ""
    as_of: str = ""
    experts: list[str] = field(default_factory=lambda: list(EXPERT_CHOICES))
    debate: str = DEBATE_CHOICES[0]
    max_tokens: str = ""
    max_cost_usd: str = ""
    rules_only: bool = False

    def body(self) -> BatchBody:
        """The REST body of this form; what it cannot be is a 400 with the form's own code."""
        symbols = [s.upper() for s in split_list(self.symbols)]
        if not symbols:
            raise BadRequestException("enter at least one symbol", code="NO_SYMBOLS")
        bad = [s for s in symbols if not SYMBOL.fullmatch(s)]
        if bad:
            raise BadRequestException(
                f"not a symbol: {', '.join(bad)}", code="INVALID_SYMBOL", details={"symbols": ", ".join(bad)}
            )
        return self._validated(symbols, self._day())

    def _day(self) -> date:
        text = self.as_of.strip()
        if not text:
            raise BadRequestException("enter the as-of date", code="AS_OF_REQUIRED")
        return parse_day(text, "as_of")

    def _validated(self, symbols: list[str], day: date) -> BatchBody:
        if not self.experts:
            raise BadRequestException("choose at least one expert", code="NO_EXPERTS")
        skip = self.debate == SKIP_DEBATE
        data: dict[str, Any] = {
            "symbols": symbols,
            "as_of": day,
            "experts": list(dict.fromkeys(self.experts)),
            "skip_debate": skip,
            "debate_mode": DEBATE_CHOICES[0] if skip else self.debate,
            "rules_only": self.rules_only,
            "max_tokens": self.max_tokens.strip() or None,
            "max_cost_usd": self.max_cost_usd.strip() or None,
        }
        try:
            return BatchBody.model_validate(data)
        except ValidationError as exc:
            raise refused(exc) from exc


def refusal_lines(error: StockdeskError) -> list[tuple[str, dict[str, Any]]]:
    """The refusal as catalogue keys with their values; empty for a code the catalogue does not word
    (the page then shows the message as it came)."""
    details = error.details or {}
    if error.code == "AS_OF_OUT_OF_RANGE" and details.get("side"):
        refused_ones = details.get("refused") or [details]
        return [(AS_OF_KEY.format(side=r["side"]), dict(r)) for r in refused_ones]
    key = ERROR_KEYS.get(error.code)
    if key is None:
        return []
    values = dict(details)
    if isinstance(values.get("symbols"), list):
        values["symbols"] = ", ".join(values["symbols"])
    return [(key, values)]


@dataclass(frozen=True)
class IndexRow:
    """One symbol of the ranked index: its verdict (action, confidence) or why it has none."""

    rank: int
    symbol: str
    status: str
    action: str | None
    tone: str
    confidence: str
    insufficient: bool
    session_id: str | None
    session_status: str | None
    seconds: str
    tokens: int
    error: str | None


def index_rows(rows: list[BatchRow]) -> list[IndexRow]:
    """The service's ranked rows, formatted as the batch's index formats them (confidence in %)."""
    return [
        IndexRow(
            rank=number,
            symbol=row.symbol,
            status=row.status,
            action=row.action,
            tone=(row.action or "").lower(),
            confidence=f"{row.confidence * 100:.0f}%" if row.confidence is not None else "",
            insufficient=row.evidence == "insufficient",
            session_id=row.session_id,
            session_status=row.session_status,
            seconds=f"{row.seconds:.1f}" if row.seconds is not None else "",
            tokens=row.tokens,
            error=row.error,
        )
        for number, row in enumerate(rows, start=1)
    ]


@dataclass(frozen=True)
class BatchView(CountedJob):
    """One batch as a list row or its page's progress panel. `live`: this server's executor holds
    it, or another process (the CLI) runs it; either way its page follows it."""

    as_of: str = ""
    symbols: list[str] = field(default_factory=list)
    experts: list[str] = field(default_factory=list)
    debate: str = ""
    rules_only: bool = False

    @property
    def form(self) -> BatchForm:
        """The form that starts this same batch again (the same symbols, date, experts, debate, mode)."""
        return BatchForm(
            ", ".join(self.symbols), self.as_of, list(self.experts), self.debate, rules_only=self.rules_only
        )

    @property
    def panel(self) -> JobPanel:
        """A batch does not resume through the jobs route (its engine is Ray): when work is left its
        page offers to start it again, which analyses only the symbols left."""
        return self.panel_as(JOB_KIND, resumable=False)


def batch_view(job: JobRecord, counts: TaskCounts, held: str | None) -> BatchView:
    """`held`: the executor's state of the job (queued, running, cancelling) when it holds it."""
    config = BatchAnalysisConfig.model_validate(job.config)
    state = held or job.status.value
    if held is None and job.status is JobStatus.RUNNING and not job.live:
        state = JobStatus.INTERRUPTED.value  # marked running, but no process is at it any more
    return BatchView(
        id=job.id,
        state=state,
        live=held is not None or job.live,
        as_of=config.as_of.isoformat(),
        symbols=list(config.symbols),
        experts=[e.value for e in config.experts],
        debate=SKIP_DEBATE if config.skip_debate else config.debate_mode.value,
        rules_only=config.rules_only,
        done=counts.done,
        failed=counts.failed,
        pending=counts.pending + counts.running,
        total=counts.total,
        error=job.error,
        created=stamp(job.created_at),
    )
