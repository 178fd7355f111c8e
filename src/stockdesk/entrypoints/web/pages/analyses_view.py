"""The Analyze form and the progress page: form fields -> ResearchRequest, AnalysisProgress -> the job
panel every job page shows (state, error, Cancel) and the rows of its steps below it.

Only wording and parsing live here; validation of what the pipeline accepts (known symbol, at least
one expert) stays in AnalysisRuns.start, the same call the REST jobs route makes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stockdesk.coordinator.application import (
    ALL_EXPERTS,
    AnalysisProgress,
    DebateModeName,
    ExpertName,
    ResearchRequest,
)
from stockdesk.coordinator.presentation.reports import formatting as fmt
from stockdesk.entrypoints.web.pages.jobs_view import JobPanel
from stockdesk.shared.dates import parse_day
from stockdesk.shared.errors import BadRequestException

SKIP_DEBATE = "skip"
DEBATE_CHOICES = (DebateModeName.BULL_BEAR.value, DebateModeName.PANEL.value, SKIP_DEBATE)
EXPERT_CHOICES = tuple(e.value for e in ALL_EXPERTS)
SETTLED_NODES = frozenset({"done", "failed", "skipped", "reused", "cancelled", "not_run"})  # will not change


@dataclass
class AnalysisForm:
    """What the form sent (kept as typed, so a refused form comes back filled in)."""

    symbol: str = ""
    as_of: str = ""
    experts: list[str] = field(default_factory=lambda: list(EXPERT_CHOICES))
    debate: str = DebateModeName.BULL_BEAR.value
    rules_only: bool = False

    def to_request(self) -> ResearchRequest:
        """The request AnalysisRuns.start checks; a malformed field is a 400 here."""
        symbol = self.symbol.strip()
        if not symbol:
            raise BadRequestException("enter a symbol, e.g. 600519.SH", code="SYMBOL_REQUIRED")
        unknown = [e for e in self.experts if e not in EXPERT_CHOICES]
        if unknown:
            raise BadRequestException(f"unknown expert(s): {', '.join(unknown)}", code="UNKNOWN_EXPERT")
        if self.debate not in DEBATE_CHOICES:
            raise BadRequestException(f"unknown debate mode '{self.debate}'", code="BAD_DEBATE_MODE")
        skip = self.debate == SKIP_DEBATE
        return ResearchRequest(
            symbol=symbol,
            as_of=parse_day(self.as_of.strip() or None),
            experts=[ExpertName(e) for e in dict.fromkeys(self.experts)],
            skip_debate=skip,
            debate_mode=DebateModeName.BULL_BEAR if skip else DebateModeName(self.debate),
            rules_only=self.rules_only,
        )


@dataclass(frozen=True)
class NodeLine:
    node: str
    state: str
    started: str
    seconds: str
    typical: str
    error: str


@dataclass(frozen=True)
class ProgressView:
    """One analysis as the progress table shows it."""

    id: str
    symbol: str
    as_of: str
    state: str
    finished: bool
    nodes: list[NodeLine]
    llm_calls: str
    tokens: str
    elapsed: str
    error: str
    action: str
    eta: str | None  # seconds left, worded; None: no estimate (no past run of the kind to time it from)
    eta_runs: int

    @property
    def panel(self) -> JobPanel:
        """The page's job panel: every planned step counts (the bar fills with those that will not
        change any more, skipped ones too). It cannot resume (a retry is a new session)."""
        settled = sum(node.state in SETTLED_NODES for node in self.nodes)
        return JobPanel(
            id=self.id, kind="analysis", state=self.state, live=not self.finished,
            done=sum(node.state == "done" for node in self.nodes), total=len(self.nodes), settled=settled,
            resumable=False,
        )  # fmt: skip


def progress_view(progress: AnalysisProgress, lang: str = "en") -> ProgressView:
    return ProgressView(
        id=progress.session_id,
        symbol=progress.symbol,
        as_of=progress.as_of.isoformat() if progress.as_of else "",
        state=progress.state,
        finished=progress.finished,
        nodes=[
            NodeLine(
                node=step.node,
                state=step.state,
                started=step.started_at.strftime("%H:%M:%S") if step.started_at else fmt.DASH,
                seconds=fmt.seconds(step.seconds, lang),
                typical=fmt.seconds(step.typical_seconds, lang),
                error=fmt.text(step.error) if step.error else "",
            )
            for step in progress.steps
        ],
        llm_calls=fmt.count(progress.llm_calls),
        tokens=fmt.count(progress.tokens),
        elapsed=fmt.seconds(progress.elapsed_seconds, lang),
        error=progress.error or "",
        action=progress.action or "",
        eta=fmt.seconds(progress.eta_seconds, lang) if progress.eta_seconds is not None else None,
        eta_runs=progress.eta_runs,
    )
