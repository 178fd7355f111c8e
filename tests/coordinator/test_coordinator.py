"""Coordinator (issue 6): the LangGraph pipeline over the real contexts, a scripted LLM and SQLite.

Fan-out, partial on failure, skip rules, degraded debate/judge, retry reuse, sessions and audit.
"""

from __future__ import annotations

import asyncio
import threading

import pytest
from sqlalchemy import text

from stockdesk.coordinator.application import (
    ExpertName,
    NodeStatus,
    ResearchRequest,
    SessionStatus,
    build_research_graph,
)
from stockdesk.coordinator.application.gateways import ResearchGateway
from stockdesk.shared.config import Settings
from stockdesk.shared.errors import BadRequestException, NotFoundException
from tests.coordinator.support import AS_OF, SYMBOL, pipeline

# macro and catalyst find no news in this store: their answer is fixed in code, without a call
EXPERT_SCHEMAS = {"ValuationModelOutput", "TechnicalAnalysisOutput", "FinancialAuditOutput"}


def request(**changes: object) -> ResearchRequest:
    return ResearchRequest(symbol=SYMBOL, as_of=AS_OF, **changes)  # type: ignore[arg-type]


def statuses(session) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {n.node: n.status.value for n in session.nodes}


def test_fan_out_runs_the_five_experts_in_parallel_then_debate_and_judge(settings: Settings) -> None:
    container, router, _ = pipeline(settings)
    # each expert that calls the model waits for the others inside its call: serial would break this
    router.barrier = (EXPERT_SCHEMAS, threading.Barrier(len(EXPERT_SCHEMAS), timeout=10))
    session = container.coordinator.service.run(request())
    assert session.status is SessionStatus.COMPLETED
    assert set(session.expert_results) == {e.value for e in ExpertName}
    assert session.debate_outcome["direction"] == "NEUTRAL"
    assert session.verdict["action"] == "HOLD" and session.verdict["position_percent"] == 0.0
    # macro and catalyst found no news: experts without data, missing rather than two neutral voices
    assert session.aggregation["stance_counts"] == {"bullish": 1, "neutral": 2, "bearish": 0}
    assert session.aggregation["experts_without_data"] == ["catalyst_detective", "macro_intelligence"]
    assert session.expert_results["macro_intelligence"]["guards"]["no_information"] is True
    assert all(status == "done" for status in statuses(session).values())


def test_a_full_bull_bear_analysis_makes_at_most_nine_llm_calls_all_linked_to_the_session(
    settings: Settings,
) -> None:
    container, router, _ = pipeline(settings, with_news=True)
    session = container.coordinator.service.run(request())
    assert session.llm_calls == len(router.calls) == 9  # 5 experts + bull + bear + resolution + judge
    assert session.tokens == 9 * 150
    with container.database.engine.connect() as conn:
        linked = conn.execute(
            text("SELECT count(*) FROM llm_calls WHERE run_id = :id"), {"id": session.id}
        ).scalar()
    assert linked == 9


def test_a_failing_expert_never_aborts_the_run_and_the_session_is_partial(settings: Settings) -> None:
    container, router, _ = pipeline(settings)
    router.broken = {"TechnicalAnalysisOutput"}
    session = container.coordinator.service.run(request())
    assert session.status is SessionStatus.PARTIAL
    assert "technical_analyst" in session.expert_errors
    assert "technical_analyst" not in session.expert_results and len(session.expert_results) == 4
    assert statuses(session)["technical_analyst"] == "failed"
    assert session.debate_outcome and session.verdict  # the others went on to a verdict
    assert session.aggregation["experts_failed"] == ["technical_analyst"]


def test_every_expert_failing_makes_the_session_failed_and_skips_debate(settings: Settings) -> None:
    container, router, _ = pipeline(settings)
    session = container.coordinator.service.run(
        request(experts=[ExpertName.TECHNICAL_ANALYST, ExpertName.VALUATION_MODELER])
    )
    assert session.status is SessionStatus.COMPLETED
    router.broken = {"TechnicalAnalysisOutput", "ValuationModelOutput"}
    failed = container.coordinator.service.run(
        request(experts=[ExpertName.TECHNICAL_ANALYST, ExpertName.VALUATION_MODELER])
    )
    assert failed.status is SessionStatus.FAILED
    assert failed.debate_outcome == {} and failed.verdict == {}
    assert statuses(failed)["debate_node"] == "skipped"


def test_skip_debate_skips_debate_and_judge(settings: Settings) -> None:
    container, router, _ = pipeline(settings)
    session = container.coordinator.service.run(request(skip_debate=True))
    assert session.status is SessionStatus.COMPLETED
    assert session.debate_outcome == {} and session.verdict == {}
    assert statuses(session)["debate_node"] == statuses(session)["judge_node"] == "skipped"
    assert router.calls and all(name in EXPERT_SCHEMAS for name in router.calls)


def test_a_failed_debate_degrades_to_empty_and_the_judge_is_skipped(settings: Settings) -> None:
    container, router, _ = pipeline(settings)
    router.broken = {"ResolutionResult"}
    session = container.coordinator.service.run(request())
    assert session.status is SessionStatus.PARTIAL
    assert session.debate_outcome == {} and "debate" in session.errors
    assert session.verdict == {} and router.count("VerdictResult") == 0
    assert statuses(session)["debate_node"] == "failed"
    assert statuses(session)["judge_node"] == "skipped"


def test_a_failed_judge_degrades_to_an_empty_verdict_with_the_error_recorded(settings: Settings) -> None:
    container, router, _ = pipeline(settings)
    router.broken = {"VerdictResult"}
    session = container.coordinator.service.run(request())
    assert session.status is SessionStatus.PARTIAL
    assert session.debate_outcome and session.verdict == {}
    assert "judge" in session.errors and statuses(session)["judge_node"] == "failed"


def test_retry_reruns_only_the_failed_experts_and_records_the_parent(settings: Settings) -> None:
    container, router, _ = pipeline(settings)
    router.broken = {"TechnicalAnalysisOutput"}
    service = container.coordinator.service
    first = service.run(request())
    assert first.status is SessionStatus.PARTIAL
    router.broken = set()
    router.calls.clear()
    retried = asyncio.run(service.aretry(first.id))
    assert retried.parent_session_id == first.id
    assert retried.status is SessionStatus.COMPLETED
    assert router.count("TechnicalAnalysisOutput") == 1
    assert router.count("ValuationModelOutput") == 0 and router.count("FinancialAuditOutput") == 0
    assert retried.expert_results["valuation_modeler"] == first.expert_results["valuation_modeler"]
    assert statuses(retried)["valuation_modeler"] == "reused"
    assert sorted(retried.reused_experts) == sorted(first.expert_results)
    with pytest.raises(BadRequestException) as nothing:
        asyncio.run(service.aretry(retried.id))
    assert nothing.value.code == "NOTHING_TO_RETRY"


def test_graph_without_debate_or_judge_gateways_stays_backward_compatible(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    research = container.research
    gateway = ResearchGateway(
        {"technical_analyst": lambda: research.technical_analyst.run}, container.data.stock_basic_info
    )
    events: list[tuple[str, NodeStatus]] = []
    graph = build_research_graph(gateway, observer=lambda e: events.append((e.node, e.status)))
    state = asyncio.run(
        graph.ainvoke(
            {"symbol": SYMBOL, "as_of": AS_OF, "experts": ["technical_analyst"], "skip_debate": False}
        )
    )
    assert set(state["expert_results"]) == {"technical_analyst"}
    assert "debate_outcome" not in state and "verdict" not in state
    assert ("technical_analyst", NodeStatus.DONE) in events
    assert ("debate_node", NodeStatus.SKIPPED) in events


def test_sessions_are_listed_with_filters_and_paging_and_read_whole(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    service = container.coordinator.service
    done = [service.run(request(experts=[ExpertName.TECHNICAL_ANALYST], skip_debate=True)) for _ in range(3)]
    page = service.list(symbol=SYMBOL.lower(), limit=2)
    assert page.total == 3 and len(page.items) == 2
    assert {i.id for i in service.list(offset=2, limit=2).items} <= {s.id for s in done}
    assert service.list(status="partial").total == 0
    whole = service.get(done[0].id)
    result = whole.expert_results["technical_analyst"]
    assert result["input"] and result["output"] and result["technical_indicators"]
    with pytest.raises(NotFoundException):
        service.get("nope")
