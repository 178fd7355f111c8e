"""Claim checks in the bull-bear debate: recorded bad answers replayed by a scripted provider.

Each agent's answer is checked against what it was shown (the advocates: the digests; the
resolution: the digests and both cleaned cases). A violation gets one repair call with the
findings; what still violates is dropped, and `claim_checks` in the outcome says so.
"""

from __future__ import annotations

import threading
from collections import defaultdict

from stockdesk.debate.application import DebateOutcomeDTO
from stockdesk.llm_platform.domain.dtos import CompletionRequest
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from tests.debate.research_results import SYMBOL, views
from tests.debate.test_bull_bear import bear, bull, resolution, service_with

REPAIR_HEADER = "上一次回答未通过校验"
# the embedded model's recorded bull case: a bull concluding bearish
RECORDED_BULL = bull(core_thesis="估值过高，存在投资风险")


class BySchema:
    """Answers by the schema asked for, in order per schema (the advocates run concurrently)."""

    def __init__(self, **answers: list[str]):
        self.answers = {
            "BullArgument": [bull()],
            "BearArgument": [bear()],
            "ResolutionResult": [resolution()],
        }
        self.answers.update({f"{k[0].upper()}{k[1:]}": v for k, v in answers.items()})
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
    return service_with(ScriptedProvider([script])).run(SYMBOL, views()), script


def kinds(outcome: DebateOutcomeDTO, agent: str, key: str = "first_violations") -> list[str]:
    return [v["kind"] for v in outcome.claim_checks[agent][key]]


def test_a_clean_debate_makes_three_calls_and_records_no_violation() -> None:
    outcome, script = debate()
    assert sum(len(r) for r in script.requests.values()) == 3
    clean = {"first_violations": [], "retried": False, "violations": [], "dropped": []}
    assert outcome.claim_checks == {"bull_advocate": clean, "bear_advocate": clean, "resolution": clean}


def test_the_symbol_the_advocates_were_given_is_grounded() -> None:
    outcome, _ = debate(bullArgument=[bull(core_thesis="600001.SH 盈利增长稳健")])
    assert outcome.claim_checks["bull_advocate"]["first_violations"] == []


def test_recorded_bull_concluding_bearish_is_asked_to_repair_and_the_repair_is_used() -> None:
    outcome, script = debate(bullArgument=[RECORDED_BULL, bull()])
    assert kinds(outcome, "bull_advocate") == ["role_reversal"]
    repair = script.prompt("BullArgument", 1)
    assert REPAIR_HEADER in repair and "你是多头辩手" in repair and "「估值过高，存在投资风险」" in repair
    assert outcome.bull_case.core_thesis == "盈利增长稳健，技术面中期向上"
    assert (
        outcome.claim_checks["bull_advocate"]["retried"]
        and outcome.claim_checks["bull_advocate"]["dropped"] == []
    )
    assert [row["agent"] for row in outcome.audit] == ["bull_advocate"] * 2 + ["bear_advocate", "resolution"]


def test_recorded_bull_still_bearish_after_the_repair_is_dropped_before_the_resolution_sees_it() -> None:
    outcome, script = debate(bullArgument=[RECORDED_BULL, RECORDED_BULL])
    thesis = outcome.bull_case.core_thesis  # written from the bull's strongest cards, not a placeholder
    assert thesis.startswith("看多论点：") and thesis.endswith("。") and "（增长）" in thesis
    assert kinds(outcome, "bull_advocate", "violations") == ["role_reversal"]
    assert outcome.claim_checks["bull_advocate"]["dropped"] == ["core_thesis: 估值过高，存在投资风险"]
    resolution_prompt = script.prompt("ResolutionResult", 0)
    assert f"核心论点：{thesis}" in resolution_prompt and "估值过高，存在投资风险" not in resolution_prompt


def test_a_bull_repair_that_does_not_parse_leaves_the_first_answer_dropped() -> None:
    outcome, _ = debate(bullArgument=[RECORDED_BULL, "no json", "no json"])
    assert outcome.claim_checks["bull_advocate"]["retried"] and outcome.bull_case.core_thesis.startswith(
        "看多论点："
    )


def test_bear_duplicates_absent_benchmarks_and_wrong_percentiles_are_dropped_after_the_repair() -> None:
    """The same point twice, a comparison with an industry average no digest gave, and "历史高位"
    for a PE percentile of 2."""
    bad = bear(
        supporting_arguments=[
            "ROE 12.5 低于行业平均",
            "graham_safety_margin=-12.8",
            "graham_safety_margin=-12.8",
        ],
        acknowledged_strengths=["PE 处于历史高位"],
    )
    outcome, script = debate(bearArgument=[bad, bad])
    assert sorted(kinds(outcome, "bear_advocate")) == [
        "duplicate",
        "percentile_contradiction",
        "unsupported_reference",
    ]
    repair = script.prompt("BearArgument", 1)
    assert "“行业平均”" in repair and "supporting_arguments 第 3 条" in repair and "pe_percentile=2" in repair
    assert outcome.bear_case.supporting_arguments == ["graham_safety_margin=-12.8"]
    assert outcome.bear_case.acknowledged_strengths == []  # optional: may end up empty


def test_an_invented_number_in_a_bull_argument_is_dropped_after_the_repair() -> None:
    bad = bull(supporting_arguments=["PE 分位 35，估值合理", "扣非净利同比 30.0%"])
    outcome, script = debate(bullArgument=[bad, bad])
    assert kinds(outcome, "bull_advocate") == ["ungrounded_number"]
    assert "不在输入数据中，不得使用：35" in script.prompt("BullArgument", 1)
    assert outcome.bull_case.supporting_arguments == ["扣非净利同比 30.0%"]


def test_a_looping_resolution_and_a_repeated_risk_are_repaired_or_dropped() -> None:
    looping = "多头证据更充分，盈利增长稳健。" * 4
    risk = {"risk": "估值回归", "probability": "Medium", "impact": "High", "mitigation": "跟踪 PE 分位"}
    bad = resolution(conflict_resolution=looping, risk_matrix=[risk, risk])
    outcome, script = debate(resolutionResult=[bad, bad])
    assert sorted(kinds(outcome, "resolution")) == ["duplicate", "repetition"]
    assert "重复了 4 次" in script.prompt("ResolutionResult", 1)
    assert outcome.conflict_resolution == "多头证据更充分，盈利增长稳健。"
    assert [r.risk for r in outcome.risk_matrix] == ["估值回归"] and outcome.risk_matrix[0].mitigation
    assert outcome.direction == "BULLISH" and outcome.confidence == 0.6  # the verdict itself is kept
    assert len(outcome.claim_checks["resolution"]["dropped"]) == 4


def test_the_resolution_is_checked_against_the_cleaned_cases_not_the_invented_numbers() -> None:
    """The bull's invented 35 was dropped before the resolution: quoting it there is ungrounded."""
    invented = bull(supporting_arguments=["PE 分位 35，估值合理", "扣非净利同比 30.0%"])
    quoting = resolution(conflict_resolution="多头所称 PE 分位 35 不成立，扣非净利同比 30.0% 仍支撑多头")
    outcome, script = debate(bullArgument=[invented, invented], resolutionResult=[quoting, resolution()])
    assert "PE 分位 35" not in script.prompt("ResolutionResult", 0)
    assert kinds(outcome, "resolution") == ["ungrounded_number"]
    assert outcome.conflict_resolution == "盈利增长的证据多于估值压力"  # the repair
