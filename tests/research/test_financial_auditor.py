"""Financial auditor: period metrics computed in code, service and the symmetric REST response."""

from __future__ import annotations

import json

import pytest

from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.research.application.code_signals import financial_score, financial_signal
from stockdesk.research.application.snapshot.financial_snapshot_builder import FinancialSnapshotBuilder
from stockdesk.research.domain.dtos.valuation import NA
from stockdesk.research.infrastructure.agents.financial_auditor.agent import OUTPUT_TOKENS
from stockdesk.shared.config import Settings
from tests.api_support import api_client
from tests.conftest import scripted_service
from tests.research.support import AS_OF, audit_records, populate_store, valuation_answer


def test_period_metrics_are_computed_per_quarter():
    snap = FinancialSnapshotBuilder().build("600001.SH", "示例", "银行", audit_records(), AS_OF)
    latest = snap.periods[0]
    assert [p.period for p in snap.periods][:3] == ["2024Q1", "2023A", "2023Q3"]
    assert latest.profit_dedt_yoy == 30.0  # 390 vs 300
    assert latest.revenue_yoy == pytest.approx((1700 - 1300) / 1300 * 100, abs=0.01)
    assert latest.cash_quality == 1.5 and latest.interest_debt_yi == 25.0
    assert latest.receivable_days == 30.0  # Q1: 90 days / turnover 3
    assert snap.periods[1].receivable_days == 120.0  # annual: 360 / 3
    assert snap.periods[-1].profit_dedt_yoy == NA  # 2022Q3 has no year-earlier period here
    assert "| 扣非净利同比% | 30.0 |" in snap.table and snap.period_count == 8


AUDIT = json.dumps(
    {
        "financial_score": 70,
        "signal": "BULLISH",
        "confidence": 0.6,
        "dimension_analyses": [
            {
                "dimension": "growth",
                "score": 75,
                "assessment": "2024Q1 扣非净利同比 30.0%",
                "key_findings": ["净利率 18.0%"],
            }
        ],
        "key_risks": ["资产负债率 40.0%"],
        "summary_reasoning": "盈利稳定增长。",
    },
    ensure_ascii=False,
)


def test_rest_responses_of_the_three_experts_are_symmetric(settings: Settings):
    """与其他专家接口结构对称: input, output and technical_/financial_/valuation_indicators."""
    levels = {"support": [], "resistance": []}
    tech_answer = {"signal": "NEUTRAL", "confidence": 0.5, "key_technical_levels": levels}
    tech_answer |= {"risk_warning": "无", "summary_reasoning": "走平。", "evidence": []}
    tech = json.dumps(tech_answer, ensure_ascii=False)
    provider = ScriptedProvider(
        [
            lambda r: (
                AUDIT
                if "审计" in r.messages[-1].content
                else (tech if "技术面" in r.messages[-1].content else valuation_answer())
            )
        ]
    )
    container = AppContainer(settings, llm_service=scripted_service(provider))
    populate_store(container.database)
    client = api_client(container)
    params = {"symbol": "600001.SH", "as_of": "2024-06-28"}
    bodies = {
        "valuation": client.get("/api/v1/research/valuation-model", params=params).json(),
        "technical": client.get("/api/v1/research/technical-analysis", params=params).json(),
        "financial": client.get("/api/v1/research/financial-audit", params=params).json(),
    }
    for name, body in bodies.items():
        assert {"input", "output", f"{name}_indicators", "grounding", "guards", "symbol", "as_of"} <= set(
            body
        ), name
    financial = bodies["financial"]
    code_score = financial_score(financial_signal(financial["financial_indicators"]))
    assert (
        financial["financial_score"] == code_score != 70 and not financial["guards"]["flagged"]
    )  # 70: the model's
    assert bodies["technical"]["technical_indicators"]["bars"] == 300


def test_the_auditor_writes_no_score_and_has_its_own_short_budget(settings: Settings):
    """Scores come from code: the schema asks for none, and five short notes fit a 700-token budget."""
    provider = ScriptedProvider([lambda r: AUDIT if "审计" in r.messages[-1].content else valuation_answer()])
    container = AppContainer(settings, llm_service=scripted_service(provider))
    populate_store(container.database)
    client = api_client(container)
    params = {"symbol": "600001.SH", "as_of": "2024-06-28"}
    assert client.get("/api/v1/research/financial-audit", params=params).status_code == 200
    assert client.get("/api/v1/research/valuation-model", params=params).status_code == 200
    audit, valuation = provider.requests
    assert audit.max_tokens == OUTPUT_TOKENS < valuation.max_tokens
    schema = json.dumps(audit.json_schema)
    assert "financial_score" not in schema and '"score"' not in schema
