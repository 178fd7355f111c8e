"""ResearchCoordinatorService: one research session = one graph run, recorded from start to end.

The session id is also the LLM run id, so every LLM call of the run is linked to it in the audit.
The session row is saved at start (status running) and at the end, with its node executions in
the same transaction (writing each node as it ends would put a commit on the event loop).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from stockdesk.coordinator.application.charts import attach_charts
from stockdesk.coordinator.application.gateways import (
    CheckedDate,
    DebateGateway,
    JudgeGateway,
    ResearchGateway,
)
from stockdesk.coordinator.application.holdings import HoldingSource
from stockdesk.coordinator.application.llm_run_scope import LLMRunScope
from stockdesk.coordinator.application.run_steps import PAST_RUNS, Typical
from stockdesk.coordinator.application.session_pulse import SessionPulse
from stockdesk.coordinator.application.verdict_ledger import VerdictLedger
from stockdesk.coordinator.domain.dtos.session import (
    Lesson,
    NodeExecution,
    ResearchRequest,
    ResearchSession,
    SessionPage,
)
from stockdesk.coordinator.domain.model.enums import NodeStatus, SessionStatus
from stockdesk.coordinator.domain.ports.session_repository import IResearchSessionRepository
from stockdesk.judge.application import Holding
from stockdesk.research.application import ExpertResult, InvalidExpertResult, expert_result, stored
from stockdesk.shared.errors import BadRequestException, NotFoundException, one_line
from stockdesk.shared.tasks.cancel import JobCancelled

FINAL = {NodeStatus.DONE, NodeStatus.FAILED, NodeStatus.SKIPPED, NodeStatus.REUSED, NodeStatus.CANCELLED}


if TYPE_CHECKING:
    from stockdesk.coordinator.application.graph import NodeObserver

logger = logging.getLogger(__name__)

INTERRUPTED = "the process running this analysis stopped (killed or crashed) before it ended; start it again"
TYPICAL_TTL_SECONDS = 30.0  # how long the typical step durations read for an ETA are reused

LessonSource = Callable[[str, date], list[Lesson]]
"""(symbol, as_of) -> the newest past verdicts of `symbol` whose outcome was known by `as_of` (bars
after `as_of` are never read), newest first: the verdict ledger's matured entries as the evaluation
context's track record scores them, wired by the entrypoints (the coordinator imports no
evaluation code)."""


def _now() -> datetime:
    return datetime.now(UTC)


def retryable(session: ResearchSession) -> bool:
    """A failed expert, debate or verdict (or a cancelled run) that a retry could still produce."""
    return bool(session.expert_errors or session.errors)


def reused_results(parent: ResearchSession) -> dict[str, ExpertResult]:
    """The parent session's results as research's types; one research cannot read any more (stored
    by an older version) is not reused: that expert runs again."""
    reused: dict[str, ExpertResult] = {}
    for name, data in parent.expert_results.items():
        try:
            reused[name] = expert_result(name, data)
        except InvalidExpertResult as exc:
            logger.warning("session %s: %s; the expert runs again", parent.id, exc)
    return reused


def final_status(session: ResearchSession) -> SessionStatus:
    if not session.expert_results:
        return SessionStatus.FAILED
    if session.expert_errors or session.errors:
        return SessionStatus.PARTIAL
    return SessionStatus.COMPLETED


class ResearchCoordinatorService:
    def __init__(
        self,
        research: ResearchGateway,
        debate: DebateGateway | None,
        judge: JudgeGateway | None,
        repository: IResearchSessionRepository,
        run_scope: LLMRunScope,
        *,
        new_id: Callable[[], str] = lambda: uuid.uuid4().hex,
        ledger: VerdictLedger | None = None,
        lessons: LessonSource | None = None,
        holdings: HoldingSource | None = None,
    ):
        """`ledger`: where each saved session's verdict is appended (None: nowhere, e.g. tests);
        `lessons`: the past verdicts a reflecting judge is shown when the request names none;
        `holdings`: the user's position in a symbol on a date (None: every symbol is analysed as
        not held)."""
        self._research, self._debate, self._judge = research, debate, judge
        self._ledger = ledger
        self._lessons = lessons
        self._holdings = holdings
        self._repository = repository
        self._run_scope = run_scope
        self._new_id = new_id
        self._typical: dict[bool, tuple[float, Typical]] = {}  # rules -> (read at, the figures)

    # ---- running -------------------------------------------------------------------------------
    async def arun(
        self,
        request: ResearchRequest,
        *,
        observer: NodeObserver | None = None,
        on_start: Callable[[ResearchSession], None] | None = None,
        parent: ResearchSession | None = None,
        session_id: str | None = None,
    ) -> ResearchSession:
        """Run the graph; `on_start` gets the new session (its id) before the first node runs.

        `session_id` names the session up front (a job started from the web knows its id before the
        run); a cancelled job stops between two nodes and its session is saved as `cancelled`.
        """
        reused = reused_results(parent) if parent else {}
        symbol, checked = self._checked(request)
        ignored = {"ignore_holdings": True} if request.ignore_holdings else {}
        session = ResearchSession(
            id=session_id or self._new_id(),
            parent_session_id=parent.id if parent else None,
            symbol=symbol,
            as_of=checked.as_of,
            experts=list(dict.fromkeys(request.experts)),
            skip_debate=request.skip_debate,
            debate_mode=request.debate_mode,
            started_at=_now(),
            reused_experts=sorted(reused),
            llm_settings=(
                {"rules_only": True, **ignored}
                if request.rules_only
                else {
                    **self._run_scope.settings(),
                    "judge_samples": request.judge_samples,
                    **({"verdict_by_rules": True} if request.verdict_by_rules else {}),
                    **({"reflection": True} if request.reflection else {}),
                    **ignored,
                }
            ),
        )
        if not session.experts:
            raise BadRequestException("choose at least one expert", code="NO_EXPERTS")
        self._repository.save(session)
        if on_start:
            on_start(session)

        finished: list[NodeExecution] = []
        kept: dict[str, Any] = {}  # the finished nodes' updates, merged as the graph merges them
        pulse = SessionPulse(self._repository, session.id, lambda: self._run_scope.usage(session.id))

        def record(event: NodeExecution) -> None:
            if event.status in FINAL:
                finished.append(event)
                pulse.finished(event)
            if observer:
                observer(event)

        def keep(update: dict[str, Any]) -> None:
            for key, value in update.items():
                old = kept.get(key)
                kept[key] = {**old, **value} if isinstance(old, dict) and isinstance(value, dict) else value

        # imported here: LangGraph costs ~0.5 s of start-up that a command running no analysis never pays
        from stockdesk.coordinator.application.graph import build_research_graph

        graph = build_research_graph(self._research, self._debate, self._judge, observer=record, keep=keep)
        lessons = self._lessons_for(request, symbol, checked)
        state: dict[str, Any] = {
            "symbol": session.symbol,
            "as_of": session.as_of,
            "experts": [e.value for e in session.experts],
            "skip_debate": session.skip_debate,
            "rules_only": request.rules_only,
            "judge_samples": request.judge_samples,
            "verdict_by_rules": request.verdict_by_rules,
            "debate_mode": session.debate_mode.value,
            "reused_results": reused,
            "lessons": [lesson.model_dump(mode="json") for lesson in lessons],
            "holding": self._holding_for(request, symbol, checked),
            "expert_results": {},
            "expert_errors": {},
            "errors": {},
        }
        clock = asyncio.get_running_loop().time()
        with self._run_scope.scope(session.id):
            try:
                with pulse:
                    final = await graph.ainvoke(state)
            except JobCancelled as exc:
                cancelled = {"cancelled": exc.message}
                self._save_stopped(session, finished, kept, SessionStatus.CANCELLED, cancelled, clock)
                raise
            except Exception as exc:  # a bug, not a node's failure (those degrade): never left `running`
                failed = {"run": one_line(exc)}
                self._save_stopped(session, finished, kept, SessionStatus.FAILED, failed, clock)
                raise
        final = await attach_charts(self._research, session.symbol, session.as_of, final)
        calls, tokens = self._run_scope.usage(session.id)
        session = session.model_copy(
            update={
                "expert_results": {n: stored(r) for n, r in (final.get("expert_results") or {}).items()},
                "expert_errors": final.get("expert_errors", {}),
                "aggregation": {**final.get("aggregation", {}), **checked.note()},
                "debate_outcome": final.get("debate_outcome", {}),
                "verdict": final.get("verdict", {}),
                "errors": final.get("errors", {}),
                "charts": final.get("charts", []),
                "finished_at": _now(),
                "duration_seconds": round(asyncio.get_running_loop().time() - clock, 3),
                "llm_calls": calls,
                "tokens": tokens,
            }
        )
        session = session.model_copy(update={"status": final_status(session), "nodes": finished})
        self._repository.save(session)  # with its node executions, in one transaction
        if self._ledger is not None and request.record_verdict and session.verdict.get("action"):
            self._ledger.record(session)  # once per saved verdict; evaluation points are not recorded
        return self.get(session.id)

    def _lessons_for(self, request: ResearchRequest, symbol: str, checked: CheckedDate) -> list[Lesson]:
        """Only an LLM judge reads lessons, and only when reflection is asked for."""
        if not request.reflection or request.rules_only or request.verdict_by_rules:
            return []
        if request.lessons is not None:
            return list(request.lessons)
        if self._lessons is None or checked.as_of is None:
            return []
        return self._lessons(symbol, checked.as_of)

    def _holding_for(self, request: ResearchRequest, symbol: str, checked: CheckedDate) -> Holding | None:
        """The user's position on the as-of date, unless the request analyses as if not held."""
        if request.ignore_holdings or self._holdings is None or checked.as_of is None:
            return None
        return self._holdings(symbol, checked.as_of)

    def _save_stopped(
        self,
        session: ResearchSession,
        finished: list[NodeExecution],
        kept: dict[str, Any],
        status: SessionStatus,
        errors: dict[str, str],
        clock: float,
    ) -> None:
        """A run that stopped before its end (cancelled, or broken by a bug), with what finished:
        the experts' results and errors, the aggregation and debate that were done."""
        calls, tokens = self._run_scope.usage(session.id)
        stopped = session.model_copy(
            update={
                "status": status,
                "errors": {**(kept.get("errors") or {}), **errors},
                "expert_results": {n: stored(r) for n, r in (kept.get("expert_results") or {}).items()},
                "expert_errors": kept.get("expert_errors") or {},
                "aggregation": kept.get("aggregation") or {},
                "debate_outcome": kept.get("debate_outcome") or {},
                "finished_at": _now(),
                "duration_seconds": round(asyncio.get_running_loop().time() - clock, 3),
                "llm_calls": calls,
                "tokens": tokens,
                "nodes": finished,
            }
        )
        self._repository.save(stopped)

    def check_request(self, request: ResearchRequest) -> tuple[str, date | None]:
        """What `arun` would refuse, refused now (a job must not be queued for an unknown symbol
        or a date outside its stored bars); else the symbol and the date it will run as of."""
        symbol, checked = self._checked(request)
        return symbol, checked.as_of

    def check_date(self, request: ResearchRequest) -> CheckedDate:
        """The date `arun` will run as of (the newest stored bar's when none is asked), or its refusal."""
        return self._checked(request)[1]

    def _checked(self, request: ResearchRequest) -> tuple[str, CheckedDate]:
        """The one check every entry point goes through: experts, symbol, as-of inside the stored bars."""
        if not request.experts:
            raise BadRequestException("choose at least one expert", code="NO_EXPERTS")
        symbol = self._research.require_symbol(request.symbol.strip())
        return symbol, self._research.check_as_of(symbol, request.as_of)

    def run(self, request: ResearchRequest, **kwargs: Any) -> ResearchSession:
        """Synchronous entry (CLI): the same run on a fresh event loop."""
        return asyncio.run(self.arun(request, **kwargs))

    async def aretry(self, session_id: str, **kwargs: Any) -> ResearchSession:
        """Rerun only the experts that failed; reuse the others' results; record the parent.

        A session whose experts all answered but whose debate or verdict failed (the model went
        away after the experts) is retried too: every expert is reused, debate and judge run again.
        """
        parent, request = self.retry_request(session_id)
        return await self.arun(request, parent=parent, **kwargs)

    def retry_request(self, session_id: str) -> tuple[ResearchSession, ResearchRequest]:
        """The parent and the request a retry runs (404 unknown, 400 nothing failed): a retry job
        is refused now, not after it was queued."""
        parent = self.get(session_id)
        if not retryable(parent):
            raise BadRequestException(
                f"session {session_id} has no failed expert, debate or verdict to retry",
                code="NOTHING_TO_RETRY",
            )
        request = ResearchRequest(
            symbol=parent.symbol,
            as_of=parent.as_of,
            experts=parent.experts,
            skip_debate=parent.skip_debate,
            debate_mode=parent.debate_mode,
            rules_only=bool(parent.llm_settings.get("rules_only")),
            judge_samples=int(parent.llm_settings.get("judge_samples", 1)),
            verdict_by_rules=bool(parent.llm_settings.get("verdict_by_rules")),
            reflection=bool(parent.llm_settings.get("reflection")),
            ignore_holdings=bool(parent.llm_settings.get("ignore_holdings")),
        )
        return parent, request

    # ---- reading -------------------------------------------------------------------------------
    def usage(self, session_id: str) -> tuple[int, int]:
        """(LLM calls, tokens) of a running session so far: the live counter reads this."""
        return self._run_scope.usage(session_id)

    def typical_steps(self, rules: bool) -> Typical:
        """Median step durations of the last finished runs of the kind: what a progress ETA reads.
        Read again at most every TYPICAL_TTL_SECONDS: a page polling a run asks every second, and
        the medians of 20 runs move only when a run ends."""
        read_at, typical = self._typical.get(rules, (float("-inf"), Typical({}, 0)))
        if time.monotonic() - read_at > TYPICAL_TTL_SECONDS:
            seconds, runs = self._repository.recent_step_seconds(rules, PAST_RUNS)
            typical = Typical.of(seconds, runs)
            self._typical[rules] = (time.monotonic(), typical)
        return typical

    def mark_interrupted(self) -> list[str]:
        """Sessions left `running` by a process that died become `interrupted` (with their elapsed
        time up to their last heartbeat and the steps they finished): what a process does when it
        opens the store, and what a page does before it reads a `running` session no run here owns."""
        return self._repository.mark_interrupted(INTERRUPTED)

    def find(self, session_id: str) -> ResearchSession | None:
        return self._repository.get(session_id)

    def get(self, session_id: str) -> ResearchSession:
        session = self._repository.get(session_id)
        if session is None:
            raise NotFoundException(
                f"no research session {session_id}", code="SESSION_NOT_FOUND", details={"id": session_id}
            )
        return session

    def list(
        self,
        *,
        symbol: str | None = None,
        status: str | None = None,
        since: date | None = None,
        action: str | None = None,
        offset: int = 0,
        limit: int = 20,
    ) -> SessionPage:
        if offset < 0 or not 1 <= limit <= 200:
            raise BadRequestException("offset must be >= 0 and limit between 1 and 200", code="BAD_PAGING")
        return self._repository.list(
            symbol=symbol, status=status, since=since, action=action, offset=offset, limit=limit
        )
