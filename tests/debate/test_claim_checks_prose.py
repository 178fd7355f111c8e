"""Recorded bad prose of the embedded model (make demo, Chinese) replayed through the real debate round.

The views say what the demo's experts saw: a multi-year growth average of +2.57 while the newest
period's revenue fell 13.74% and deducted profit 25.49%, and code's evidence cards signed for each
side. A bad first answer gets one repair call that names the violation; a good repair is taken;
a bad one has the violating text dropped and recorded in `claim_checks` before the next agent
reads it.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from typing import Any

from stockdesk.debate.application import DebateOutcomeDTO, DebateService
from stockdesk.debate.infrastructure.agents.bear_advocate.agent import BearAdvocateAgent
from stockdesk.debate.infrastructure.agents.bull_advocate.agent import BullAdvocateAgent
from stockdesk.debate.infrastructure.agents.resolution.agent import ResolutionAgent
from stockdesk.debate.infrastructure.agents.sampling import SAMPLING
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.domain.dtos import CompletionRequest
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.research.application import ExpertView
from stockdesk.research.domain.dtos.evidence_card import EvidenceCard
from tests.conftest import scripted_service

SYMBOL = "000338.SZ"
RECORDED_BULL_THESIS = "被评估为被高估，但其盈利能力在增长，且财务状况堪忧，因此仍被看多"
RECORDED_BEAR_THESIS = "营收与扣非净利同比双双下降，但考虑到"  # stopped mid-sentence
RECORDED_RESOLUTION = "空头证据更充分。因此，多头论"  # stopped mid-sentence


def _card(card_id: str, text: str, direction: int, figure: str, value: float) -> EvidenceCard:
    expert = {"valuation": "valuation_modeler", "financial": "financial_auditor"}[card_id.split(".")[0]]
    return EvidenceCard(
        id=card_id,
        expert=expert,
        text_zh=text,
        text_en=text,
        direction=direction,  # type: ignore[arg-type]
        strength=0.5,
        figures={figure: value},
    )


def views() -> list[ExpertView]:
    valuation = ExpertView(
        expert="valuation_modeler",
        stance="bearish",
        confidence=0.6,
        signal="Overvalued",
        key_figures={"pe_percentile": 85, "graham_safety_margin": 12.8, "growth_rate_avg": 2.57},
        cards=[
            _card("valuation.pe_percentile", "PE 历史分位 85（偏高）", -1, "pe_percentile", 85),
            _card(
                "valuation.graham_safety_margin",
                "安全边际 12.8%（价格低于格雷厄姆内在价值）",
                1,
                "graham_safety_margin",
                12.8,
            ),
            _card(
                "valuation.growth_rate_avg",
                "扣非净利润同比增速均值 2.57%（增长）",
                1,
                "growth_rate_avg",
                2.57,
            ),
        ],
    )
    financial = ExpertView(
        expert="financial_auditor",
        stance="bearish",
        confidence=0.65,
        signal="BEARISH",
        key_figures={"period": "2020Q1", "revenue_yoy": -13.74, "profit_dedt_yoy": -25.49},
        cards=[
            _card("financial.revenue_yoy", "营收同比 -13.74%（下降）", -1, "revenue_yoy", -13.74),
            _card("financial.profit_dedt_yoy", "扣非净利同比 -25.49%（下降）", -1, "profit_dedt_yoy", -25.49),
        ],
    )
    return [valuation, financial]


def answer(**fields: Any) -> str:
    return json.dumps(fields, ensure_ascii=False)


GOOD_BULL = answer(
    core_thesis="价格低于格雷厄姆内在价值，安全边际为正。",
    supporting_arguments=["安全边际 12.8%"],
    acknowledged_risks=["营收同比 -13.74%（下降）"],
)
GOOD_BEAR = answer(
    core_thesis="营收与扣非净利同比双双下降，PE 历史分位 85 偏高。",
    supporting_arguments=["营收同比 -13.74%（下降）", "扣非净利同比 -25.49%（下降）"],
    acknowledged_strengths=["安全边际 12.8%"],
)
RISK = {"risk": "业绩继续下滑", "probability": "Medium", "impact": "High", "mitigation": "跟踪季度营收"}
GOOD_RESOLUTION = answer(
    direction="BEARISH",
    confidence=0.6,
    risk_matrix=[RISK],
    key_disagreements=["安全边际能否抵消业绩下滑"],
    conflict_resolution="空头证据更充分：营收与利润同比均下降。",
)


class BySchema:
    """Answers by the schema asked for, in order per schema (the advocates run concurrently)."""

    def __init__(self, **answers: list[str]):
        self.answers = {
            "BullArgument": [GOOD_BULL],
            "BearArgument": [GOOD_BEAR],
            "ResolutionResult": [GOOD_RESOLUTION],
            **answers,
        }
        self.requests: dict[str, list[CompletionRequest]] = defaultdict(list)
        self._lock = threading.Lock()

    def __call__(self, request: CompletionRequest) -> str:
        with self._lock:
            seen = self.requests[request.schema_name]
            seen.append(request)
            script = self.answers[request.schema_name]
            return script[min(len(seen) - 1, len(script) - 1)]

    def prompt(self, schema: str, call: int) -> str:
        return self.requests[schema][call].messages[-1].content


def debate(**answers: list[str]) -> tuple[DebateOutcomeDTO, BySchema]:
    script = BySchema(**answers)
    adapter = LLMHandle(scripted_service(ScriptedProvider([script])), SAMPLING)
    service = DebateService(BullAdvocateAgent(adapter), BearAdvocateAgent(adapter), ResolutionAgent(adapter))
    return service.run(SYMBOL, views()), script


def kinds(outcome: DebateOutcomeDTO, agent: str, key: str = "first_violations") -> list[str]:
    return sorted({v["kind"] for v in outcome.claim_checks[agent][key]})


def test_the_good_answers_pass_every_check_in_three_calls() -> None:
    """The fixture itself is clean, so each replay below fails only for the text it replays."""
    outcome, script = debate()
    assert sum(len(r) for r in script.requests.values()) == 3
    assert all(not record["first_violations"] for record in outcome.claim_checks.values())


def test_the_recorded_bull_arguing_from_bearish_facts_is_repaired_and_the_repair_is_taken() -> None:
    bad = answer(core_thesis=RECORDED_BULL_THESIS, supporting_arguments=["安全边际 12.8%"])
    outcome, script = debate(BullArgument=[bad, GOOD_BULL])
    assert kinds(outcome, "bull_advocate") == ["direction_contradicts_sign", "side_contradiction"]
    repair = script.prompt("BullArgument", 1)
    assert "把“堪忧”当作理由" in repair and "profit_dedt_yoy=-25.49" in repair
    assert "growth_rate_avg=2.57 是多年增速均值" in repair
    assert outcome.bull_case.core_thesis == "价格低于格雷厄姆内在价值，安全边际为正。"
    assert outcome.claim_checks["bull_advocate"]["dropped"] == []


def test_the_recorded_bull_still_bad_after_the_repair_is_dropped_before_the_resolution_reads_it() -> None:
    bad = answer(core_thesis=RECORDED_BULL_THESIS, supporting_arguments=["安全边际 12.8%"])
    outcome, script = debate(BullArgument=[bad, bad])
    assert outcome.bull_case.core_thesis.startswith("看多论点：")  # from the cards, not a placeholder
    assert kinds(outcome, "bull_advocate", "violations") == [
        "direction_contradicts_sign",
        "side_contradiction",
    ]
    assert outcome.claim_checks["bull_advocate"]["dropped"] == [f"core_thesis: {RECORDED_BULL_THESIS}"]
    assert outcome.bull_case.supporting_arguments == ["安全边际 12.8%"]  # the clean argument stays
    assert RECORDED_BULL_THESIS not in script.prompt("ResolutionResult", 0)


def test_a_bull_argument_quoting_a_bearish_card_is_dropped_and_recorded() -> None:
    bad = answer(
        core_thesis="价格低于格雷厄姆内在价值，安全边际为正。",
        supporting_arguments=["安全边际 12.8%", "营收同比 -13.74%"],
    )
    outcome, script = debate(BullArgument=[bad, bad])
    assert kinds(outcome, "bull_advocate") == ["side_contradiction"]
    assert "代码判为看空的证据“营收同比 -13.74%（下降）”" in script.prompt("BullArgument", 1)
    assert outcome.bull_case.supporting_arguments == ["安全边际 12.8%"]
    assert outcome.claim_checks["bull_advocate"]["dropped"] == ["supporting_arguments[1]: 营收同比 -13.74%"]


def test_the_recorded_bear_cut_off_mid_sentence_is_asked_for_a_complete_sentence() -> None:
    bad = answer(core_thesis=RECORDED_BEAR_THESIS, supporting_arguments=["营收同比 -13.74%（下降）"])
    outcome, script = debate(BearArgument=[bad, GOOD_BEAR])
    assert kinds(outcome, "bear_advocate") == ["cut_off"]
    repair = script.prompt("BearArgument", 1)
    assert "以“但考虑到”结尾" in repair and "完整的句子" in repair and "字数上限" in repair
    assert outcome.bear_case.core_thesis == "营收与扣非净利同比双双下降，PE 历史分位 85 偏高。"


def test_the_recorded_resolution_cut_off_and_its_fragment_disagreement_are_dropped_after_the_repair() -> None:
    bad = answer(
        direction="BEARISH",
        confidence=0.6,
        risk_matrix=[RISK],
        key_disagreements=["安全边际能否抵消业绩下滑", "多头认为"],
        conflict_resolution=RECORDED_RESOLUTION,
    )
    outcome, script = debate(ResolutionResult=[bad, bad])
    assert kinds(outcome, "resolution", "violations") == ["cut_off"]
    assert "“因此，”之后只有半句“多头论”" in script.prompt("ResolutionResult", 1)
    assert outcome.conflict_resolution == "空头证据更充分。"  # the whole sentence before it, as written
    assert outcome.key_disagreements == ["安全边际能否抵消业绩下滑"]
    assert sorted(outcome.claim_checks["resolution"]["dropped"]) == [
        "conflict_resolution: 因此，多头论",
        "key_disagreements[1]: 多头认为",
    ]
    assert outcome.direction == "BEARISH"  # the verdict itself is kept
