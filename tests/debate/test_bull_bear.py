"""Bull-bear debate: expert digests, advocates in parallel, resolution, strict parsing, REST, audit run id."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from stockdesk.debate.application import DebateOutcomeDTO, DebateService
from stockdesk.debate.domain.dtos.outcome import DebateOutcome
from stockdesk.debate.infrastructure.agents.bear_advocate.agent import BearAdvocateAgent
from stockdesk.debate.infrastructure.agents.bull_advocate.agent import BullAdvocateAgent
from stockdesk.debate.infrastructure.agents.resolution.agent import ResolutionAgent
from stockdesk.debate.infrastructure.agents.sampling import SAMPLING
from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.llm_platform.domain.dtos import CompletionRequest
from stockdesk.llm_platform.infrastructure.persistence.repositories import SqlLLMStore
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.research.application import ExpertView, InvalidExpertResult, expert_views
from stockdesk.research.application.snapshot.valuation_snapshot_builder import ValuationSnapshotBuilder
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.errors import BadRequestException, LLMOutputParseError
from tests.api_support import api_client
from tests.conftest import scripted_service
from tests.debate.panel_support import AS_OF as PANEL_AS_OF
from tests.debate.panel_support import SYMBOL as PANEL_SYMBOL
from tests.debate.panel_support import PanelScript, decision, scripted_panel, seed_store, turn
from tests.debate.research_results import SYMBOL, expert_results, valuation, views
from tests.research.support import AS_OF, QUARTERS, dailies, finance_records, overview

URL = "/api/v1/debate/run"


def bull(**changes: object) -> str:
    answer = {
        "core_thesis": "盈利增长稳健，技术面中期向上",
        "supporting_arguments": ["扣非净利同比 30.0%", "现金质量 1.5"],
        "acknowledged_risks": ["估值处于历史高位"],
    }
    return json.dumps({**answer, **changes}, ensure_ascii=False)


def bear(**changes: object) -> str:
    answer = {
        "core_thesis": "格雷厄姆安全边际为负，催化剂缺位",
        "supporting_arguments": ["graham_safety_margin=-12.8", "催化剂侦探未检索到信息"],
        "acknowledged_strengths": ["ROE 12.5"],
    }
    return json.dumps({**answer, **changes}, ensure_ascii=False)


def resolution(**changes: object) -> str:
    answer = {
        "direction": "BULLISH",
        "confidence": 0.6,
        "risk_matrix": [
            {"risk": "估值回归", "probability": "Medium", "impact": "High", "mitigation": "跟踪 PE 分位"},
            {"risk": "催化剂缺位", "probability": "High", "impact": "Low", "mitigation": ""},
        ],
        "key_disagreements": ["安全边际为负是否抵消增长"],
        "conflict_resolution": "盈利增长的证据多于估值压力",
    }
    return json.dumps({**answer, **changes}, ensure_ascii=False)


ANSWERS = {"BullArgument": bull(), "BearArgument": bear(), "ResolutionResult": resolution()}


def routed(answers: dict[str, str] = ANSWERS, seen: list[str] | None = None) -> ScriptedProvider:
    """Answers by the schema asked for: bull and bear run concurrently, so call order is not fixed."""

    def answer(request: CompletionRequest) -> str:
        if seen is not None:
            seen.append(request.schema_name)
        return answers[request.schema_name]

    return ScriptedProvider([answer])


def debate_service(llm: LLMService, panel: Any = None) -> DebateService:
    adapter = LLMHandle(llm, SAMPLING)
    return DebateService(
        BullAdvocateAgent(adapter), BearAdvocateAgent(adapter), ResolutionAgent(adapter), panel=panel
    )


def service_with(provider: ScriptedProvider, panel: Any = None) -> DebateService:
    return debate_service(scripted_service(provider), panel)


# ---- digests -----------------------------------------------------------------------------------


def test_research_results_become_views_with_their_own_numbers() -> None:
    results = expert_results()
    digests = {d.expert: d for d in expert_views(results)}
    assert list(digests) == [
        "valuation_modeler",
        "technical_analyst",
        "financial_auditor",
        "macro_intelligence",
        "catalyst_detective",
    ]
    assert [d.signal for d in digests.values()] == ["Fair", "BULLISH", "BULLISH", "Favorable", "Neutral"]
    assert [d.confidence for d in digests.values()] == [0.66, 0.7, 0.68, 0.55, 0.2]
    assert [d.stance for d in digests.values()] == ["neutral", "bullish", "bullish", "bullish", "neutral"]
    val_cards = {c.id for c in digests["valuation_modeler"].cards}
    assert "valuation.pe_percentile" in val_cards  # the debate reads the code's cards
    assert all(3 <= len(d.key_figures) <= 8 for d in digests.values())

    val, tech, fin = (results[e] for e in ("valuation_modeler", "technical_analyst", "financial_auditor"))
    assert digests["valuation_modeler"].key_figures["pe_ttm"] == val["valuation_indicators"]["pe_ttm"]
    assert (
        digests["valuation_modeler"].key_figures["graham_safety_margin"]
        == (val["valuation_indicators"]["graham_safety_margin"])
    )
    assert digests["valuation_modeler"].risks == ["估值处于历史高位", "增速放缓"]
    assert digests["technical_analyst"].key_figures["rsi14"] == tech["technical_indicators"]["rsi14"]
    assert digests["technical_analyst"].risks == ["RSI 接近超买区，短线或有回调"]
    assert digests["technical_analyst"].text == tech["summary_reasoning"]
    newest = fin["financial_indicators"]["periods"][0]
    assert digests["financial_auditor"].key_figures == {
        "period": "2024Q1",
        "revenue_yoy": newest["revenue_yoy"],
        "profit_dedt_yoy": 30.0,
        "gross_margin": newest["gross_margin"],
        "roe": 12.5,
        "cash_quality": 1.5,
        "debt_to_assets": 40.0,
    }
    macro = digests["macro_intelligence"].key_figures
    assert macro == {
        "has_information": True,
        "monetary_policy_results": 1,
        "industry_policy_results": 2,
        "macro_economy_results": 3,
        "industry_outlook_results": 4,
    }
    catalyst = digests["catalyst_detective"]
    assert catalyst.key_figures["has_information"] is False
    assert catalyst.risks == ["大股东减持计划"]  # the negative catalyst's event
    assert "input" not in catalyst.model_dump() and len(catalyst.text) <= 300


def test_numbers_research_could_not_compute_are_left_out() -> None:
    short = ValuationSnapshotBuilder().build(overview(), dailies(300), finance_records(QUARTERS[:1]), AS_OF)
    assert short.peg_ratio == "N/A"
    result = valuation().model_dump(mode="json")
    result["valuation_indicators"] = short.model_dump(mode="json")
    (view,) = expert_views({"valuation_modeler": result})
    assert "peg_ratio" not in view.key_figures and "growth_rate_avg" not in view.key_figures
    assert view.key_figures["pe_ttm"] == 15.0


def test_views_pass_through_and_a_failed_expert_is_skipped() -> None:
    given = ExpertView(
        expert="technical_analyst",
        stance="bearish",
        signal="BEARISH",
        confidence=0.4,
        key_figures={"rsi14": 81.2},
    ).model_dump(mode="json")
    views = expert_views(
        {
            "sentiment_scout": {"stance": "bullish", "confidence": 0.5, "risks": ["舆情反转"]},
            "technical_analyst": given,
            "financial_auditor": {},  # a failed expert is skipped, not fatal
        }
    )
    assert [v.expert for v in views] == ["technical_analyst", "sentiment_scout"]
    assert views[0].key_figures == {"rsi14": 81.2} and views[0].stance == "bearish"
    assert views[1].risks == ["舆情反转"] and views[1].key_figures == {}


@pytest.mark.parametrize(
    ("results", "message"),
    [
        ({"sentiment_scout": {"summary": "看好"}}, "sentiment_scout: neither a sentiment_scout result"),
        ({"technical_analyst": {"signal": "BULLISH"}}, "technical_analyst: neither"),
        ({"technical_analyst": {"stance": "bullish", "confidence": 1.5}}, "confidence"),
        ({"technical_analyst": {"stance": "up", "confidence": 0.5}}, "stance"),
        ({"technical_analyst": {"technical_indicators": {}, "signal": "BULLISH"}}, "technical_analyst: "),
    ],
)
def test_unusable_expert_results_are_a_400(results: dict, message: str) -> None:
    with pytest.raises(InvalidExpertResult, match=message) as info:
        expert_views(results)
    assert info.value.http_status == 400 and info.value.code == "INVALID_EXPERT_RESULTS"


# ---- the debate --------------------------------------------------------------------------------


def test_bull_and_bear_really_run_in_parallel_before_the_resolution() -> None:
    barrier = threading.Barrier(2, timeout=5)  # run one after the other, the first wait breaks it
    order: list[str] = []
    threads: set[int] = set()

    def answer(request: CompletionRequest) -> str:
        if request.schema_name != "ResolutionResult":
            threads.add(threading.get_ident())
            barrier.wait()
        order.append(request.schema_name)
        return ANSWERS[request.schema_name]

    outcome = service_with(ScriptedProvider([answer])).run(SYMBOL, views())
    assert len(threads) == 2 and threading.get_ident() not in threads
    assert sorted(order[:2]) == ["BearArgument", "BullArgument"] and order[2:] == ["ResolutionResult"]
    assert outcome.direction == "BULLISH"


def test_three_calls_give_the_outcome_with_its_audit() -> None:
    provider = routed()
    outcome = service_with(provider).run(f" {SYMBOL} ", views())
    assert provider.calls == 3
    assert isinstance(outcome, DebateOutcomeDTO) and isinstance(outcome, DebateOutcome)
    assert outcome.symbol == SYMBOL and outcome.mode == "bull-bear" and outcome.artifact is None
    assert outcome.direction == "BULLISH" and outcome.confidence == 0.6
    assert outcome.bull_case.core_thesis == "盈利增长稳健，技术面中期向上"
    assert outcome.bear_case.acknowledged_strengths == ["ROE 12.5"]
    assert [(r.risk, r.probability, r.impact) for r in outcome.risk_matrix] == [
        ("估值回归", "Medium", "High"),
        ("催化剂缺位", "High", "Low"),
    ]
    assert outcome.key_disagreements == ["安全边际为负是否抵消增长"]
    assert outcome.conflict_resolution == "盈利增长的证据多于估值压力"
    assert outcome.experts_considered[0] == "valuation_modeler" and len(outcome.experts_considered) == 5
    assert outcome.dropped_sources == 0

    assert [row["agent"] for row in outcome.audit] == ["bull_advocate", "bear_advocate", "resolution"]
    bull_row, bear_row, resolution_row = outcome.audit
    assert bull_row["output"] == bull() and resolution_row["output"] == resolution()
    assert all(row["tokens"] == 150 for row in outcome.audit)  # ScriptedProvider: 100 + 50 per call
    for row in (bull_row, bear_row):
        assert "【估值建模师】结论 中性（Fair）" in row["input"]
        assert "[valuation.pe_percentile] PE 历史分位 2（偏低）（↑利多）" in row["input"]  # the code's card
        assert "has_information=false" in row["input"]  # the catalyst search found nothing (no cards)
    assert "盈利增长稳健，技术面中期向上" in resolution_row["input"]
    assert "格雷厄姆安全边际为负，催化剂缺位" in resolution_row["input"]
    assert "承认的优势：ROE 12.5" in resolution_row["input"]


def test_the_callers_run_id_reaches_the_audit_rows_of_all_three_calls(database: Database) -> None:
    llm = scripted_service(routed(), database=database)
    with llm.run_scope("debate-run-7"):
        debate_service(llm).run(SYMBOL, views())
    records = SqlLLMStore(database).list_for_run("debate-run-7")
    assert sorted(r.caller or "" for r in records) == [
        "debate.bear_advocate",
        "debate.bull_advocate",
        "debate.resolution",
    ]
    assert {r.status for r in records} == {"ok"}


@pytest.mark.parametrize(
    ("schema", "bad"),
    [
        ("ResolutionResult", resolution(direction="UP")),
        ("ResolutionResult", resolution(confidence=1.5)),
        (
            "ResolutionResult",
            resolution(risk_matrix=[{"risk": "估值回归", "probability": "很高", "impact": "High"}]),
        ),
        (
            "ResolutionResult",
            resolution(risk_matrix=[{"risk": "High", "probability": "Medium", "impact": "High"}]),
        ),
        ("BullArgument", bull(supporting_arguments=[])),
        ("BearArgument", "看空，理由见上文"),
    ],
)
def test_out_of_bounds_answers_are_parse_errors_after_the_repair(schema: str, bad: str) -> None:
    provider = routed({**ANSWERS, schema: bad})
    with pytest.raises(LLMOutputParseError):
        service_with(provider).run(SYMBOL, views())
    requests = [r for r in provider.requests if r.schema_name == schema]
    assert len(requests) == 2  # the answer, then the one repair attempt
    if schema == "ResolutionResult":
        assert provider.calls == 4


def test_panel_mode_is_handed_to_the_panel_service(
    settings: Settings, database: Database, tmp_path: Path
) -> None:
    """The real panel (scripted model, real store): it plays on the digests and its outcome comes back."""
    script = PanelScript(
        expert=lambda role, rnd: turn("SELL", 0.6, ["N9"]),  # N9 is never listed: dropped every turn
        moderator=lambda rnd, prompt: decision("end", "SELL", 0.55),
    )
    panel, _, _ = scripted_panel(script, seed_store(database, tmp_path), settings.cache_dir, database)
    provider = routed()
    results = expert_results()
    outcome = service_with(provider, panel).run(
        PANEL_SYMBOL, expert_views(results), mode="panel", as_of=PANEL_AS_OF
    )
    assert provider.calls == 0 and script.expert_calls == 8 and script.calls["moderator"] == 1
    assert outcome.mode == "panel" and outcome.direction == "BEARISH" and outcome.confidence == 0.55
    assert outcome.experts_considered == list(results) and outcome.dropped_sources == 8
    assert outcome.artifact["ticker"] == PANEL_SYMBOL and outcome.artifact["date"] == "20240301"
    assert outcome.artifact["conclusion"] == {"text": "panel says SELL", "action": "SELL", "confidence": 0.55}
    agents = [a["agent"] for a in outcome.audit]
    assert agents.count("panel.moderator") == 1 and len(agents) == 9
    first_prompt = next(a["input"] for a in outcome.audit if a["agent"] == "panel.risk" and a["round"] == 1)
    assert all(expert in first_prompt for expert in results)  # the digests reached the experts


def test_panel_mode_without_a_panel_service_is_a_400() -> None:
    provider = routed()
    with pytest.raises(BadRequestException) as info:
        service_with(provider).run(SYMBOL, views(), mode="panel")
    assert info.value.code == "PANEL_NOT_CONFIGURED" and info.value.http_status == 400
    assert provider.calls == 0


# ---- REST --------------------------------------------------------------------------------------


def client_for(settings: Settings, provider: ScriptedProvider) -> TestClient:
    container = AppContainer(settings, llm_service=scripted_service(provider))
    return api_client(container)


def test_rest_debate(settings: Settings) -> None:
    provider = routed()
    response = client_for(settings, provider).post(
        URL, json={"symbol": SYMBOL, "expert_results": expert_results()}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert provider.calls == 3
    assert body["direction"] == "BULLISH" and body["confidence"] == 0.6 and body["mode"] == "bull-bear"
    assert body["bull_case"]["supporting_arguments"] == ["扣非净利同比 30.0%", "现金质量 1.5"]
    assert body["risk_matrix"][0]["mitigation"] == "跟踪 PE 分位" and len(body["audit"]) == 3
    assert body["artifact"] is None and body["dropped_sources"] == 0


@pytest.mark.parametrize(
    ("payload", "status", "code"),
    [
        ({"symbol": SYMBOL, "expert_results": {}}, 400, "BAD_REQUEST"),  # the schema asks for one
        ({"symbol": SYMBOL}, 400, "BAD_REQUEST"),
        ({"symbol": SYMBOL, "expert_results": {"x": {"signal": "A"}}, "mode": "duel"}, 400, "BAD_REQUEST"),
        (  # the app configures the panel, so its input is checked like bull-bear's
            {"symbol": SYMBOL, "expert_results": {"x": {"signal": "A"}}, "mode": "panel"},
            400,
            "INVALID_EXPERT_RESULTS",
        ),
        (
            {"symbol": SYMBOL, "expert_results": {"x": {"stance": "bullish", "confidence": 0.5}}},
            422,
            "LLM_OUTPUT_PARSE_ERROR",
        ),
    ],
)
def test_rest_errors(settings: Settings, payload: dict, status: int, code: str) -> None:
    response = client_for(settings, ScriptedProvider(["no json here"])).post(URL, json=payload)
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code


@pytest.mark.parametrize(
    ("symbol", "mode", "message"), [(" ", "bull-bear", "symbol"), (SYMBOL, "duel", "duel")]
)
def test_blank_symbol_and_unknown_mode_are_400s(symbol: str, mode: str, message: str) -> None:
    provider = routed()
    with pytest.raises(BadRequestException, match=message) as info:
        service_with(provider).run(symbol, views(), mode=mode)
    assert info.value.http_status == 400 and provider.calls == 0
