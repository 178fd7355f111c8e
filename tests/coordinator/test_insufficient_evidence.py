"""No evidence, no verdict through the whole pipeline: one expert with data gives `insufficient
evidence` (rules-only and with the scripted LLM, which is then never asked to debate or judge), and
an expert without data is missing from the agreement, never a voice."""

from __future__ import annotations

from stockdesk.coordinator.application import ExpertName, ResearchRequest, ResearchSession
from stockdesk.coordinator.application.aggregation import aggregate
from stockdesk.coordinator.presentation.reports.render import render_report
from stockdesk.research.application import ExpertView
from stockdesk.shared.config import Settings
from tests.api_support import api_client
from tests.coordinator.support import AS_OF, SYMBOL, pipeline

ONE_WITH_DATA = [ExpertName.TECHNICAL_ANALYST, ExpertName.MACRO_INTELLIGENCE]  # macro: no news stored


def nodes(session: ResearchSession) -> dict[str, str]:
    return {n.node: str(n.status) for n in session.nodes}


def assert_insufficient(session: ResearchSession) -> None:
    verdict = session.verdict
    assert verdict["evidence"] == "insufficient" and verdict["action"] == "HOLD"
    assert (
        verdict["confidence"] == 0.0 and verdict["position_percent"] == 0.0 and verdict["trade_plan"] is None
    )
    assert verdict["experts_with_data"] == ["technical_analyst"]
    assert session.aggregation["experts_without_data"] == ["macro_intelligence"]
    for fmt in ("md", "html"):
        report = render_report(session, fmt)
        assert "Insufficient evidence (证据不足): 1 expert(s) had data (technical_analyst)" in report
        assert "no data: missing, not a voice" in report  # the macro expert's row


def test_rules_only_with_one_expert_holding_data_is_insufficient_evidence(settings: Settings) -> None:
    container, router, _ = pipeline(settings)
    request = ResearchRequest(symbol=SYMBOL, as_of=AS_OF, experts=ONE_WITH_DATA, rules_only=True)
    session = container.coordinator.service.run(request)
    assert_insufficient(session)
    assert router.calls == [] and session.verdict["source"] == "rules"


def test_the_llm_path_skips_debate_and_judge_calls_when_one_expert_has_data(settings: Settings) -> None:
    container, router, _ = pipeline(settings)
    session = container.coordinator.service.run(
        ResearchRequest(symbol=SYMBOL, as_of=AS_OF, experts=ONE_WITH_DATA)
    )
    assert_insufficient(session)
    assert router.calls == ["TechnicalAnalysisOutput"]  # no bull, bear, resolution or judge call
    assert nodes(session)["debate_node"] == "skipped" and nodes(session)["judge_node"] == "done"
    assert "The debate was skipped: too few experts had data" in render_report(session, "md")


def test_an_expert_without_data_is_no_voice_in_the_agreement() -> None:
    views = [
        ExpertView(expert="valuation_modeler", stance="bullish", signal="Undervalued", confidence=0.6),
        ExpertView(expert="financial_auditor", stance="bullish", signal="Bullish", confidence=0.5),
        # 0 bars: not a voice
        ExpertView(expert="technical_analyst", stance="bearish", confidence=0.9, has_data=False),
    ]
    results = {v.expert: {"stance": v.stance} for v in views}
    found = aggregate(views, results, {})
    assert found["stances"] == {"valuation_modeler": "bullish", "financial_auditor": "bullish"}
    assert found["stance_counts"] == {"bullish": 2, "neutral": 0, "bearish": 0}
    assert found["agreement_ratio"] == 1.0 and found["mean_confidence"] == 0.55
    assert found["experts_without_data"] == ["technical_analyst"]


def test_the_web_session_page_says_insufficient_evidence_in_both_languages(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    request = ResearchRequest(symbol=SYMBOL, as_of=AS_OF, experts=ONE_WITH_DATA, rules_only=True)
    session = container.coordinator.service.run(request)
    client = api_client(container)
    for lang, words in (("en", "Insufficient evidence."), ("zh", "证据不足。")):
        client.cookies.set("lang", lang)
        page = client.get(f"/sessions/{session.id}")
        assert page.status_code == 200 and 'data-evidence="insufficient"' in page.text
        assert words in page.text and "technical_analyst" in page.text
