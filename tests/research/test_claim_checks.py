"""Claim checks in the research experts: the embedded model's recorded bad outputs, replayed.

Each case: the snapshot the expert was shown, the answer the 1.5B model gave (replayed by the
scripted provider), then: the violation is found, the repair round is asked with it listed, and a
repair that is still bad is dropped from the answer, with the GuardReport saying what went.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.research.application.financial_auditor_service import FinancialAuditorService
from stockdesk.research.application.valuation_modeler_service import ValuationModelerService
from stockdesk.research.domain.dtos.financial import (
    AuditFinanceRecordInput,
    FinancialSnapshotDTO,
    PeriodMetrics,
)
from stockdesk.research.domain.dtos.valuation import (
    FinanceRecordInput,
    StockOverviewInput,
    ValuationDailyInput,
    ValuationSnapshotDTO,
)
from stockdesk.research.infrastructure.agents.financial_auditor.agent import FinancialAuditorAgent
from stockdesk.research.infrastructure.agents.structured_agent import SAMPLING
from stockdesk.research.infrastructure.agents.valuation_modeler.agent import ValuationModelerAgent
from stockdesk.shared.claims import PLACEHOLDER
from tests.conftest import scripted_service
from tests.research.support import AS_OF, audit_records, dailies, finance_records, overview
from tests.research.test_search_experts import CATALYST, PARAMS, catalyst_answer, client_for

SYMBOL = "600001.SH"
REPAIR_HEADER = "上一次回答未通过校验"


def period(name: str, **values: Any) -> PeriodMetrics:
    base: dict[str, Any] = {
        "revenue_yoy": "N/A", "profit_dedt_yoy": "N/A", "gross_margin": "N/A", "net_margin": "N/A",
        "roe": "N/A", "roic": "N/A", "cash_quality": "N/A", "debt_to_assets": "N/A",
        "interest_debt_yi": "N/A", "current_ratio": "N/A", "quick_ratio": "N/A", "receivable_days": "N/A",
        "inventory_days": "N/A",
    }  # fmt: skip
    return PeriodMetrics(period=name, **(base | values))


# What the financial auditor was shown in the recorded run: revenue and profit both down, ROE 4.46.
FALLING_SNAPSHOT = FinancialSnapshotDTO(
    symbol=SYMBOL,
    stock_name="示例银行",
    industry="银行",
    as_of=AS_OF,
    periods=[
        period(
            "2024Q1",
            revenue_yoy=-13.7,
            profit_dedt_yoy=-25.5,
            gross_margin=20.1,
            net_margin=8.0,
            roe=4.46,
            debt_to_assets=55.0,
            receivable_days=41.0,
        ),
        period(
            "2023Q1",
            revenue_yoy=5.2,
            profit_dedt_yoy=3.1,
            gross_margin=22.0,
            net_margin=9.0,
            roe=6.0,
            debt_to_assets=52.0,
            receivable_days=35.0,
        ),
    ],
    period_count=2,
    latest_period="2024Q1",
    table="| 期间 | 2024Q1 | 2023Q1 |",
)


def audit(**changes: Any) -> str:
    answer: dict[str, Any] = {
        "financial_score": 72,
        "signal": "BULLISH",
        "confidence": 0.7,
        "dimension_analyses": [
            {
                "dimension": "profitability",
                "score": 70,
                "assessment": "净利率 8.0%，毛利率 20.1%。",
                "key_findings": ["ROE 为 4.46%"],
            },
            {
                "dimension": "growth",
                "score": 40,
                "assessment": "营收同比 -13.7%，扣非净利同比 -25.5%。",
                "key_findings": [],
            },
        ],
        "key_risks": ["资产负债率 55.0%"],
        "summary_reasoning": "营收与利润双降，资产负债率 55.0%。",
    }
    return json.dumps(answer | changes, ensure_ascii=False)


# The recorded answer: praise while both growth figures are negative, ROE "数据不足" while 4.46 is
# given, the same risk bullet repeated (three times then; the schema now allows two bullets).
RECORDED_AUDIT = audit(
    dimension_analyses=[
        {
            "dimension": "profitability",
            "score": 70,
            "assessment": "ROE 数据不足，无法判断盈利能力。",
            "key_findings": ["毛利率 20.1%"],
        },
        {
            "dimension": "growth",
            "score": 75,
            "assessment": "公司财务表现良好，增长稳健。",
            "key_findings": [],
        },
    ],
    key_risks=["应收账款周转天数上升", "应收账款周转天数上升"],
    summary_reasoning="公司财务表现良好。资产负债率 55.0%，偿债压力可控。",
)


class Recorded:
    """StockData and snapshot builder at once (duck-typed): hands the service the recorded snapshot."""

    def __init__(self, snapshot: Any):
        self.snapshot = snapshot

    def get_stock_info(self, symbol: str) -> tuple[str, str, str] | None:
        return SYMBOL, "示例银行", "银行"

    def get_audit_records(self, symbol: str, as_of: date) -> list[AuditFinanceRecordInput]:
        return audit_records()

    def get_finance_records(self, symbol: str, as_of: date) -> list[FinanceRecordInput]:
        return finance_records()

    def get_stock_overview(self, symbol: str, as_of: date) -> StockOverviewInput | None:
        return overview()

    def get_valuation_dailies(self, symbol: str, as_of: date) -> list[ValuationDailyInput]:
        return dailies(200)

    def build(self, *args: Any) -> Any:
        return self.snapshot


def auditor(*answers: str) -> tuple[FinancialAuditorService, ScriptedProvider]:
    provider = ScriptedProvider(list(answers))
    recorded = Recorded(FALLING_SNAPSHOT)
    agent = FinancialAuditorAgent(LLMHandle(scripted_service(provider), SAMPLING))
    return FinancialAuditorService(recorded, recorded, agent), provider


def repair_prompt(provider: ScriptedProvider) -> str:
    assert provider.calls == 2, "a repair round was expected"
    prompt = provider.requests[1].messages[-1].content
    assert REPAIR_HEADER in prompt
    return prompt


def test_recorded_audit_praise_missing_roe_and_repeated_risk_are_found_and_asked_to_repair() -> None:
    """表现良好 with revenue -13.7 / profit -25.5, ROE 数据不足 with roe 4.46, one risk three times."""
    service, provider = auditor(RECORDED_AUDIT, audit())
    result = service.run(SYMBOL, AS_OF)
    first = {(v.kind, v.field, v.item) for v in result.guards.first_violations}
    assert first == {
        ("unavailable_but_present", "dimension_analyses.0.assessment", None),
        ("direction_contradicts_sign", "dimension_analyses.1.assessment", None),
        ("direction_contradicts_sign", "summary_reasoning", None),
        ("duplicate", "key_risks", 1),
    }
    prompt = repair_prompt(provider)
    assert "roe=4.46" in prompt and "「公司财务表现良好」" in prompt
    assert "revenue_yoy=-13.7，profit_dedt_yoy=-25.5" in prompt and "key_risks 第 2 条" in prompt
    # the repair was clean: it is the answer, nothing flagged or dropped
    assert result.guards.retried and not result.guards.flagged and result.guards.dropped == []
    assert result.summary_reasoning == "营收与利润双降，资产负债率 55.0%。"


def test_recorded_audit_still_bad_after_the_repair_is_dropped_and_reported() -> None:
    service, provider = auditor(RECORDED_AUDIT, RECORDED_AUDIT)
    result = service.run(SYMBOL, AS_OF)
    assert provider.calls == 2 and result.guards.flagged and result.guards.violations
    assert result.summary_reasoning == "资产负债率 55.0%，偿债压力可控。"
    assert [d.assessment for d in result.dimension_analyses] == [PLACEHOLDER, PLACEHOLDER]
    assert result.key_risks == ["应收账款周转天数上升"]
    assert "summary_reasoning: 公司财务表现良好" in result.guards.dropped
    assert "key_risks[1]: 应收账款周转天数上升" in result.guards.dropped
    assert result.output == RECORDED_AUDIT  # the raw answer stays in the trace


# What the valuation modeler was shown: PE at the 14th percentile, PB at the 2nd, no industry figures.
CHEAP_SNAPSHOT = ValuationSnapshotDTO(
    symbol=SYMBOL, stock_name="示例银行", industry="银行", as_of=AS_OF, trade_date="2024-06-28",
    current_price=20.0, total_mv=1234.56, currency="CNY", pe_ttm=12.5, pb=0.9, ps_ttm="N/A", dv_ratio=1.5,
    pe_percentile=14, pb_percentile=2, ps_percentile="N/A", history_days=200, growth_rate_avg=-5.2,
    growth_periods=4, peg_ratio="N/A", eps_ttm=1.3, bps=10.4, graham_intrinsic_val=17.44,
    graham_safety_margin=-12.8, gross_margin=33.7, gross_margin_trend="同比上升 2.2%", roe=4.46,
    net_margin=8.0, debt_to_assets=55.0, latest_report_period="2024-03-31",
)  # fmt: skip


def valuation(**changes: Any) -> str:
    answer: dict[str, Any] = {
        "valuation_verdict": "Undervalued",
        "confidence_score": 0.6,
        "estimated_intrinsic_value_range": {"lower_bound": "格雷厄姆内在价值附近", "upper_bound": "数据不足"},
        "key_evidence": ["PE 分位 14，PB 分位 2，均处于历史低位"],
        "risk_factors": ["格雷厄姆安全边际 -12.8%"],
        "reasoning_summary": "PE 分位 14、PB 分位 2，估值处于历史低位。",
    }
    return json.dumps(answer | changes, ensure_ascii=False)


# The recorded answer: "high" percentiles at 14 and 2, and an industry average nowhere in the input.
RECORDED_VALUATION = valuation(
    key_evidence=["PE 分位高于历史分位", "PE处于历史高位", "PB 分位 2"],
    risk_factors=["净利率 8.0% 低于行业平均", "ROE 4.46% 低于行业平均水平", "资产负债率 55.0% 高于行业平均"],
    reasoning_summary="PE处于历史高位，估值偏贵。ROE 为 4.46%。",
)


def modeler(*answers: str) -> tuple[ValuationModelerService, ScriptedProvider]:
    provider = ScriptedProvider(list(answers))
    recorded = Recorded(CHEAP_SNAPSHOT)
    agent = ValuationModelerAgent(LLMHandle(scripted_service(provider), SAMPLING))
    return ValuationModelerService(recorded, recorded, agent), provider


def test_recorded_valuation_percentile_and_industry_average_claims_are_found_and_asked_to_repair() -> None:
    service, provider = modeler(RECORDED_VALUATION, valuation())
    result = service.run(SYMBOL, AS_OF)
    first = [(v.kind, v.field, v.item) for v in result.guards.first_violations]
    assert ("percentile_contradiction", "key_evidence", 0) in first
    assert ("percentile_contradiction", "key_evidence", 1) in first
    assert ("percentile_contradiction", "reasoning_summary", None) in first
    assert [k for k, f, _ in first if f == "risk_factors"] == ["unsupported_reference"] * 3
    prompt = repair_prompt(provider)
    assert "pe_percentile=14" in prompt and "“行业平均”" in prompt and "“高于历史”" in prompt
    assert not result.guards.flagged and result.key_evidence == ["PE 分位 14，PB 分位 2，均处于历史低位"]


def test_recorded_valuation_still_bad_after_the_repair_is_dropped_and_reported() -> None:
    service, _ = modeler(RECORDED_VALUATION, RECORDED_VALUATION)
    result = service.run(SYMBOL, AS_OF)
    assert result.guards.flagged and result.guards.retried
    assert result.key_evidence == ["PB 分位 2"]
    assert result.risk_factors == [PLACEHOLDER]  # every risk compared with an absent benchmark
    assert result.reasoning_summary == "ROE 为 4.46%。"
    assert len(result.guards.dropped) == 6


def test_a_trade_instruction_that_survives_the_repair_is_dropped_too() -> None:
    trade = valuation(reasoning_summary="估值处于历史低位。建议买入。")
    service, provider = modeler(trade, trade)
    result = service.run(SYMBOL, AS_OF)
    assert "不得给出交易指令" in repair_prompt(provider)
    assert result.guards.trade_instructions == ["建议买入"] and result.guards.flagged
    assert result.reasoning_summary == "估值处于历史低位。"


def test_a_clean_answer_makes_one_call_and_records_nothing() -> None:
    service, provider = auditor(audit())
    result = service.run(SYMBOL, AS_OF)
    assert provider.calls == 1 and not result.guards.retried
    assert (
        result.guards.first_violations == []
        and result.guards.violations == []
        and result.guards.dropped == []
    )


def test_a_repeated_catalyst_is_dropped_with_its_object_after_the_repair(settings) -> None:  # type: ignore[no-untyped-def]
    """A list of objects read as bullets: the duplicate event takes its catalyst with it."""
    event = {"expected_impact": "Medium", "timeframe": "short-term", "probability": "Medium"}
    twice = [{"event": "中国 iPhone 销量下滑", **event}, {"event": "中国 iPhone 销量下滑", **event}]
    repeated = catalyst_answer(negative_catalysts=twice)
    client, provider = client_for(settings, repeated, repeated)
    body = client.get(CATALYST, params=PARAMS).json()
    assert provider.calls == 2 and "negative_catalysts.event 第 2 条" in repair_prompt(provider)
    assert [c["event"] for c in body["negative_catalysts"]] == ["中国 iPhone 销量下滑"]
    assert body["guards"]["dropped"] == ["negative_catalysts[].event[1]: 中国 iPhone 销量下滑"]
