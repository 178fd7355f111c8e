"""The research pipeline as a LangGraph StateGraph, read top to bottom:

    START -> route_to_experts --Send--> <the selected experts, in parallel> -> aggregator_node
          -> debate_node -> judge_node -> END

- A failing expert never aborts the run: its error is recorded and the others go on.
- skip_debate (or no expert result at all) ends the run after the aggregator.
- debate/judge failures degrade to empty results with the error recorded; an empty debate
  outcome skips the judge: with no debate conclusion there is nothing to rule on
  (judge-design.md in ../shared/specs, Decision 7). Without a judge gateway the graph ends
  after the debate, as before the judge existed.
- rules_only: each expert gives its snapshot and code-only signal (no LLM), the debate is
  skipped and the judge gives the rules verdict.
- verdict_by_rules (evaluate --mode experts): the experts run with the LLM, the debate is skipped
  and the judge gives the rules verdict over the experts' own stances and confidences.
- The judge is handed the evidence: each expert's stance and code signal, and the technical
  snapshot's as-of prices for the trade plan (built without the LLM when the technical analyst
  was not asked for).
- No evidence, no verdict: an expert without data (aggregation.py) is no voice; with fewer experts
  with data than the judge's rule asks, the debate is skipped and the judge answers `insufficient
  evidence` from code (no LLM call).
"""

from __future__ import annotations

import logging
import operator
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime
from typing import Annotated, Any, TypedDict, TypeVar

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from stockdesk.coordinator.application.aggregation import aggregate, llm_signals, with_data
from stockdesk.coordinator.application.gateways import DebateGateway, JudgeGateway, ResearchGateway
from stockdesk.coordinator.domain.dtos.session import NodeExecution
from stockdesk.coordinator.domain.model.enums import ALL_EXPERTS, NodeStatus
from stockdesk.judge.application import Holding
from stockdesk.research.application import (
    ExpertResult,
    ExpertView,
    InvalidExpertResult,
    expert_view,
    snapshot_of,
)
from stockdesk.shared.errors import one_line
from stockdesk.shared.tasks.cancel import JobCancelled, check_cancelled

logger = logging.getLogger(__name__)

ROUTE, AGGREGATOR, DEBATE, JUDGE = "route_to_experts", "aggregator_node", "debate_node", "judge_node"
TECHNICAL = "technical_analyst"
NodeObserver = Callable[[NodeExecution], None]
"""Who wants to know, live, when a node starts and ends (the CLI's live view)."""
Keeper = Callable[[dict[str, Any]], None]
"""Who keeps each node's finished update (expert results, aggregation, debate, verdict) as it comes:
a run that is cancelled keeps what finished, though the graph never returns its state."""


V = TypeVar("V")


def merge(left: dict[str, V], right: dict[str, V]) -> dict[str, V]:
    return {**left, **right}


class ResearchGraphState(TypedDict, total=False):
    symbol: str
    as_of: date | None
    experts: list[str]
    skip_debate: bool
    rules_only: bool
    judge_samples: int
    verdict_by_rules: bool
    debate_mode: str
    reused_results: dict[str, ExpertResult]
    lessons: list[dict[str, Any]]
    holding: Holding | None
    expert_results: Annotated[dict[str, ExpertResult], merge]
    expert_errors: Annotated[dict[str, str], merge]
    views: list[ExpertView]
    aggregation: dict[str, Any]
    debate_outcome: dict[str, Any]
    verdict: dict[str, Any]
    errors: Annotated[dict[str, str], merge]
    skipped: Annotated[list[str], operator.add]


def _now() -> datetime:
    return datetime.now(UTC)


class _Nodes:
    """The node functions, each reporting start and end to the observer."""

    def __init__(
        self,
        research: ResearchGateway,
        debate: DebateGateway | None,
        judge: JudgeGateway | None,
        observer: NodeObserver | None,
        keep: Keeper | None = None,
    ):
        self.research, self.debate, self.judge = research, debate, judge
        self._observer = observer or (lambda event: None)
        self.keep = keep or (lambda update: None)

    def emit(self, node: str, status: NodeStatus, **fields: Any) -> None:
        self._observer(NodeExecution(node=node, status=status, **fields))

    async def timed(
        self,
        node: str,
        work: Callable[[], Awaitable[dict[str, Any]]],
        on_error: Callable[[str], dict[str, Any]],
    ) -> dict[str, Any]:
        check_cancelled()  # between nodes: a cancelled run stops before its next step
        started, clock = _now(), time.perf_counter()
        self.emit(node, NodeStatus.RUNNING, started_at=started)
        try:
            update = await work()
        except JobCancelled:  # the run stops here; what finished before is kept
            seconds = round(time.perf_counter() - clock, 3)
            self.emit(node, NodeStatus.CANCELLED, started_at=started, finished_at=_now(), seconds=seconds)
            raise
        except Exception as exc:  # recorded and degraded: one node never aborts the run
            error = one_line(exc)
            logger.warning("node %s failed: %s", node, error, exc_info=exc)  # the traceback, for the log
            seconds = round(time.perf_counter() - clock, 3)
            self.emit(
                node, NodeStatus.FAILED, started_at=started, finished_at=_now(), seconds=seconds, error=error
            )
            return on_error(error)
        seconds = round(time.perf_counter() - clock, 3)
        self.emit(node, NodeStatus.DONE, started_at=started, finished_at=_now(), seconds=seconds)
        self.keep(update)
        return update

    # ---- nodes ---------------------------------------------------------------------------------
    def route_to_experts(self, state: ResearchGraphState) -> dict[str, Any]:
        reused = state.get("reused_results") or {}
        for expert in reused:
            self.emit(expert, NodeStatus.REUSED)
        update = {"expert_results": dict(reused)}
        self.keep(update)
        return update

    def fan_out(self, state: ResearchGraphState) -> list[Send] | str:
        reused = state.get("reused_results") or {}
        todo = [e for e in state["experts"] if e not in reused]
        for expert in todo:
            self.emit(expert, NodeStatus.WAITING)
        payload = {
            "symbol": state["symbol"],
            "as_of": state.get("as_of"),
            "rules_only": state.get("rules_only", False),
        }
        return [Send(expert, payload) for expert in todo] or AGGREGATOR

    def expert_node(self, expert: str) -> Callable[[ResearchGraphState], Awaitable[dict[str, Any]]]:
        async def run(state: ResearchGraphState) -> dict[str, Any]:
            async def work() -> dict[str, Any]:
                run = self.research.run_expert_rules if state.get("rules_only") else self.research.run_expert
                result = await run(expert, state["symbol"], state.get("as_of"))
                return {"expert_results": {expert: result}}

            return await self.timed(expert, work, lambda error: {"expert_errors": {expert: error}})

        return run

    def aggregator_node(self, state: ResearchGraphState) -> dict[str, Any]:
        """Each result as research's ExpertView (research reads its own result types), then the
        agreement statistics; a result research cannot read counts as that expert's failure."""
        results = state.get("expert_results") or {}
        errors = dict(state.get("expert_errors") or {})
        views: list[ExpertView] = []
        for name, result in results.items():
            try:
                views.append(expert_view(name, result))
            except InvalidExpertResult as exc:
                errors[name] = one_line(exc)
        self.emit(AGGREGATOR, NodeStatus.DONE, finished_at=_now(), seconds=0.0)
        read = {n: r for n, r in results.items() if n not in errors}
        update = {"views": views, "aggregation": aggregate(views, read, errors), "expert_errors": errors}
        self.keep(update)
        return update

    def voiced(self, state: ResearchGraphState) -> list[str]:
        """The experts with data: the only ones a verdict rests on."""
        found = (state.get("aggregation") or {}).get("experts_with_data")
        return list(found) if isinstance(found, list) else with_data(state.get("views") or [])

    def insufficient(self, state: ResearchGraphState) -> bool:
        return self.judge is not None and not self.judge.sufficient(self.voiced(state))

    def after_aggregation(self, state: ResearchGraphState) -> str:
        by_rules = state.get("rules_only") or state.get("verdict_by_rules")
        if by_rules and state.get("expert_results") and not state.get("skip_debate"):
            self.emit(DEBATE, NodeStatus.SKIPPED)
            return JUDGE if self.judge is not None else END
        if state.get("skip_debate") or not state.get("expert_results") or self.debate is None:
            for node in (DEBATE, JUDGE):
                self.emit(node, NodeStatus.SKIPPED)
            return END
        if self.insufficient(state):  # nothing to debate: the judge says so without the LLM
            self.emit(DEBATE, NodeStatus.SKIPPED)
            return JUDGE
        return DEBATE

    async def debate_node(self, state: ResearchGraphState) -> dict[str, Any]:
        assert self.debate is not None
        debate = self.debate

        async def work() -> dict[str, Any]:
            mode = state.get("debate_mode", "bull-bear")
            outcome = await debate.run_debate(
                state["symbol"], state.get("views") or [], mode, state.get("as_of")
            )
            return {"debate_outcome": outcome}

        return await self.timed(DEBATE, work, lambda e: {"debate_outcome": {}, "errors": {"debate": e}})

    async def technical_snapshot(self, state: ResearchGraphState) -> dict[str, Any]:
        """The as-of prices for the trade plan: the technical expert's snapshot, else one built now."""
        result = (state.get("expert_results") or {}).get(TECHNICAL)
        found = snapshot_of(TECHNICAL, result) if result is not None else None
        if found is not None:
            return found
        try:
            built = await self.research.run_expert_rules(TECHNICAL, state["symbol"], state.get("as_of"))
        except Exception:  # no price history: the verdict says it has no plan
            return {}
        return snapshot_of(TECHNICAL, built) or {}

    async def evidence(self, state: ResearchGraphState) -> dict[str, Any]:
        views = state.get("views") or []
        aggregation = state.get("aggregation") or {}
        voiced = self.voiced(state)
        stances = aggregation.get("stances") or {v.expert: v.stance for v in views}
        if state.get("verdict_by_rules"):
            signals = llm_signals([v for v in views if v.expert in voiced])
        else:
            signals = {v.expert: v.code_signal for v in views if v.code_signal is not None}
        # the rules verdict over the LLM experts' own stances (evaluate --mode experts) is not the model's
        by_llm = bool(state.get("verdict_by_rules"))
        model = None if by_llm else await self.research.model_view(state["symbol"], state.get("as_of"))
        return {
            "model": {**model.model_dump(mode="json"), "note": model.words()} if model is not None else None,
            "experts_with_data": voiced,
            "stances": {name: s for name, s in stances.items() if name in voiced},
            "code_signals": {name: s.model_dump(mode="json") for name, s in signals.items()},
            "technical": await self.technical_snapshot(state),
            "facts": {"digests": aggregation.get("digests") or []},  # what the judge's text is checked on
            "lessons": state.get("lessons") or [],  # past verdicts and their outcomes (reflection)
            # the voiced experts' evidence cards: what the judge picks among in choices mode
            "cards": [
                card.model_dump(mode="json", include={"id", "text_zh", "text_en", "direction"})
                for view in views
                if view.expert in voiced
                for card in view.cards
            ],
        }

    async def judge_node(self, state: ResearchGraphState) -> dict[str, Any]:
        assert self.judge is not None
        judge, outcome = self.judge, state.get("debate_outcome") or {}
        rules_only = bool(state.get("rules_only") or state.get("verdict_by_rules")) or self.insufficient(
            state
        )
        if not outcome and not rules_only:  # no debate conclusion, no verdict
            self.emit(JUDGE, NodeStatus.SKIPPED)
            return {"verdict": {}}

        async def work() -> dict[str, Any]:
            evidence = await self.evidence(state)
            holding = state.get("holding")
            if rules_only:
                return {"verdict": await judge.rules_verdict(state["symbol"], evidence, holding)}
            samples = state.get("judge_samples", 1)
            return {"verdict": await judge.run_verdict(state["symbol"], outcome, evidence, samples, holding)}

        return await self.timed(JUDGE, work, lambda e: {"verdict": {}, "errors": {"judge": e}})


def build_research_graph(
    research_gateway: ResearchGateway,
    debate_gateway: DebateGateway | None = None,
    judge_gateway: JudgeGateway | None = None,
    *,
    observer: NodeObserver | None = None,
    keep: Keeper | None = None,
) -> Any:
    """The compiled graph; `judge_gateway=None` keeps the pre-judge shape (debate -> END); `keep`
    gets each node's finished update as it comes."""
    nodes = _Nodes(research_gateway, debate_gateway, judge_gateway, observer, keep)
    graph = StateGraph(ResearchGraphState)
    graph.add_node(ROUTE, nodes.route_to_experts)
    experts = [e.value for e in ALL_EXPERTS]
    for expert in experts:
        graph.add_node(expert, nodes.expert_node(expert))
        graph.add_edge(expert, AGGREGATOR)
    graph.add_node(AGGREGATOR, nodes.aggregator_node)
    graph.add_edge(START, ROUTE)
    graph.add_conditional_edges(ROUTE, nodes.fan_out, [*experts, AGGREGATOR])
    after = [DEBATE, JUDGE, END] if judge_gateway is not None else [DEBATE, END]
    graph.add_conditional_edges(AGGREGATOR, nodes.after_aggregation, after)
    graph.add_node(DEBATE, nodes.debate_node)
    if judge_gateway is not None:
        graph.add_node(JUDGE, nodes.judge_node)
        graph.add_edge(DEBATE, JUDGE)
        graph.add_edge(JUDGE, END)
    else:
        graph.add_edge(DEBATE, END)
    return graph.compile()
