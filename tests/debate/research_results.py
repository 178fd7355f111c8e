"""Realistic research results for the debate: the real research DTOs, their snapshots built by the real
snapshot builders from known inputs, dumped with `model_dump(mode="json")` as the Coordinator hands them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from stockdesk.research.application import ExpertView, expert_views
from stockdesk.research.application.dtos import (
    CatalystDetectiveResultDTO,
    FinancialAuditorResultDTO,
    MacroIntelligenceResultDTO,
    TechnicalAnalystResultDTO,
    ValuationModelerResultDTO,
)
from stockdesk.research.application.snapshot.financial_snapshot_builder import FinancialSnapshotBuilder
from stockdesk.research.application.snapshot.search_snapshot_builder import SearchSnapshotBuilder
from stockdesk.research.application.snapshot.technical_snapshot_builder import TechnicalSnapshotBuilder
from stockdesk.research.application.snapshot.valuation_snapshot_builder import ValuationSnapshotBuilder
from stockdesk.research.domain.dtos.expert import GroundingReport, GuardReport
from stockdesk.research.domain.dtos.financial import DimensionAnalysis
from stockdesk.research.domain.dtos.search import (
    DimensionSearchResult,
    SearchResultItem,
    SearchSnapshotDTO,
    StockSearchContext,
)
from stockdesk.research.domain.dtos.search_dimensions import CATALYST_DIMENSIONS, MACRO_DIMENSIONS
from stockdesk.research.domain.dtos.soft_intel import Catalyst, IntelDimensionAnalysis
from stockdesk.research.domain.dtos.technical import KeyTechnicalLevels, PriceBarInput
from stockdesk.research.domain.dtos.valuation import IntrinsicValueRange
from tests.research.support import AS_OF, audit_records, dailies, finance_records, overview

SYMBOL = "600001.SH"
NAME = "示例银行"


def _trace(**fields: Any) -> dict[str, Any]:
    return dict(
        symbol=SYMBOL,
        as_of=AS_OF,
        input="(prompt)",
        output="(raw answer)",
        grounding=GroundingReport(),
        guards=GuardReport(),
        **fields,
    )


def valuation() -> ValuationModelerResultDTO:
    snap = ValuationSnapshotBuilder().build(overview(), dailies(300), finance_records(), AS_OF)
    return ValuationModelerResultDTO(
        **_trace(
            valuation_verdict="Fair",
            confidence_score=0.66,
            estimated_intrinsic_value_range=IntrinsicValueRange(
                lower_bound="格雷厄姆内在价值附近", upper_bound="数据不足"
            ),
            key_evidence=[f"PE(TTM) {snap.pe_ttm}，处于历史 {snap.pe_percentile} 分位"],
            risk_factors=["估值处于历史高位", "增速放缓"],
            reasoning_summary=f"PE 处于历史 {snap.pe_percentile} 分位，"
            f"但格雷厄姆安全边际为 {snap.graham_safety_margin}%。",
            valuation_indicators=snap.model_dump(mode="json"),
        )
    )


def technical() -> TechnicalAnalystResultDTO:
    rng = np.random.default_rng(11)
    closes = np.round(20 * np.exp(np.cumsum(rng.normal(0.001, 0.012, 300))), 2)
    days = pd.bdate_range(end=AS_OF, periods=len(closes))
    bars = [
        PriceBarInput(trade_date=d.date(), open=c, high=c * 1.01, low=c * 0.99, close=c, volume=1e6 + i)
        for i, (d, c) in enumerate(zip(days, closes, strict=True))
    ]
    snap = TechnicalSnapshotBuilder().build(SYMBOL, NAME, bars, AS_OF)
    return TechnicalAnalystResultDTO(
        **_trace(
            signal="BULLISH",
            confidence=0.7,
            key_technical_levels=KeyTechnicalLevels(support=snap.support_levels[:1]),
            risk_warning="RSI 接近超买区，短线或有回调",
            summary_reasoning=f"收盘价 {snap.close} 高于 MA60 {snap.ma60}，中期趋势向上。",
            evidence=[f"MA20 {snap.ma20}"],
            technical_indicators=snap.model_dump(mode="json"),
        )
    )


def financial() -> FinancialAuditorResultDTO:
    snap = FinancialSnapshotBuilder().build(SYMBOL, NAME, "银行", audit_records(), AS_OF)
    return FinancialAuditorResultDTO(
        **_trace(
            financial_score=72,
            signal="BULLISH",
            confidence=0.68,
            dimension_analyses=[
                DimensionAnalysis(dimension="growth", score=75, assessment="扣非净利同比 30.0%")
            ],
            key_risks=["应收账款周转天数上升"],
            summary_reasoning="盈利增长稳健，现金流质量良好。",
            financial_indicators=snap.model_dump(mode="json"),
        )
    )


def _search_snapshot(dimensions: tuple, found: bool) -> SearchSnapshotDTO:
    context = StockSearchContext(
        symbol=SYMBOL, stock_name=NAME, industry="银行", market="CN", language="zh", as_of=AS_OF
    )
    results = [
        DimensionSearchResult(
            name=config.name,
            topic=config.topic,
            query=config.render(context),
            freshness=config.freshness,
            count=config.count,
            provider="bocha",
            results_before_filter=3,
            items=[
                SearchResultItem(
                    title=f"{config.topic} 新闻 {n}", url=f"https://news.example.cn/{config.name}/{n}"
                )
                for n in range(index + 1 if found else 0)
            ],
        )
        for index, config in enumerate(dimensions)
    ]
    return SearchSnapshotBuilder().build(context, results)


def macro() -> MacroIntelligenceResultDTO:
    snap = _search_snapshot(MACRO_DIMENSIONS, found=True)
    return MacroIntelligenceResultDTO(
        **_trace(
            macro_environment="Favorable",
            confidence_score=0.55,
            macro_summary="货币政策偏宽松，流动性充裕。",
            dimension_analyses=[IntelDimensionAnalysis(dimension="货币政策", assessment="降准落地")],
            key_opportunities=["流动性宽松"],
            key_risks=["地产风险外溢"],
            information_sources=snap.source_urls[:1],
            macro_indicators=snap.model_dump(mode="json"),
        )
    )


def catalyst() -> CatalystDetectiveResultDTO:
    """Nothing found: research held the answer to Neutral / 数据不足, as its service does."""
    snap = _search_snapshot(CATALYST_DIMENSIONS, found=False)
    return CatalystDetectiveResultDTO(
        **_trace(
            catalyst_assessment="Neutral",
            confidence_score=0.2,
            catalyst_summary="数据不足：未检索到近期催化剂信息。",
            dimension_analyses=[],
            positive_catalysts=[],
            negative_catalysts=[
                Catalyst(
                    event="大股东减持计划",
                    expected_impact="Medium",
                    timeframe="short-term",
                    probability="Low",
                )
            ],
            information_sources=[],
            catalyst_indicators=snap.model_dump(mode="json"),
        )
    )


def expert_results() -> dict[str, dict[str, Any]]:
    """All five experts as the Coordinator passes them (JSON-ready dicts)."""
    return {
        "valuation_modeler": valuation().model_dump(mode="json"),
        "technical_analyst": technical().model_dump(mode="json"),
        "financial_auditor": financial().model_dump(mode="json"),
        "macro_intelligence": macro().model_dump(mode="json"),
        "catalyst_detective": catalyst().model_dump(mode="json"),
    }


def views() -> list[ExpertView]:
    """The five results as the debate reads them: research's views."""
    return expert_views(expert_results())
