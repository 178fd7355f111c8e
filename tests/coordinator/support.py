"""A real pipeline for coordinator tests: the app container over a populated SQLite store and a
scripted LLM that answers each agent by the schema it asks for (no numbers, so guards pass)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import pandas as pd

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.domain.dtos import CompletionRequest
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from tests.conftest import scripted_service
from tests.research.support import AS_OF, populate_store

SYMBOL = "600001.SH"
__all__ = ["ANSWERS", "AS_OF", "SYMBOL", "Router", "pipeline"]

ANSWERS: dict[str, dict[str, Any]] = {
    "ValuationModelOutput": {
        "valuation_verdict": "Fair",
        "confidence_score": 0.6,
        "estimated_intrinsic_value_range": {"lower_bound": "数据不足", "upper_bound": "数据不足"},
        "key_evidence": ["市盈率处于历史高位"],
        "risk_factors": ["估值偏高"],
        "reasoning_summary": "估值合理偏高。",
    },
    "TechnicalAnalysisOutput": {
        "signal": "NEUTRAL",
        "confidence": 0.5,
        "key_technical_levels": {"support": [], "resistance": []},
        "risk_warning": "数据有限",
        "summary_reasoning": "均线走平，方向不明。",
        "evidence": [],
    },
    "FinancialAuditOutput": {
        "financial_score": 70,
        "signal": "BULLISH",
        "confidence": 0.6,
        "dimension_analyses": [
            {"dimension": "growth", "score": 75, "assessment": "利润稳步增长", "key_findings": []}
        ],
        "key_risks": ["负债水平需关注"],
        "summary_reasoning": "盈利稳定增长。",
    },
    "MacroIntelligenceOutput": {
        "macro_environment": "Neutral",
        "confidence_score": 0.3,
        "macro_summary": "数据不足",
        "dimension_analyses": [],
        "key_opportunities": [],
        "key_risks": [],
        "information_sources": [],
    },
    "CatalystDetectiveOutput": {
        "catalyst_assessment": "Neutral",
        "confidence_score": 0.3,
        "catalyst_summary": "数据不足",
        "dimension_analyses": [],
        "positive_catalysts": [],
        "negative_catalysts": [],
        "information_sources": [],
    },
    "BullArgument": {
        "core_thesis": "盈利稳定增长",
        "supporting_arguments": ["财务审计偏多"],
        "acknowledged_risks": ["估值偏高"],
    },
    "BearArgument": {
        "core_thesis": "估值偏高",
        "supporting_arguments": ["市盈率处于历史高位"],
        "acknowledged_strengths": ["盈利稳定"],
    },
    "ResolutionResult": {
        "direction": "NEUTRAL",
        "confidence": 0.55,
        "risk_matrix": [
            {"risk": "估值回落", "probability": "Medium", "impact": "High", "mitigation": "控制仓位"}
        ],
        "key_disagreements": ["估值是否已反映增长"],
        "conflict_resolution": "基本面稳健但估值不便宜，中性。",
    },
    "VerdictResult": {
        "action": "HOLD",
        "position_percent": 0.0,
        "confidence": 0.55,
        "entry_strategy": "观望",
        "stop_loss": "不持仓，无需止损",
        "take_profit": "不适用",
        "time_horizon": "3个月",
        "risk_warnings": ["估值回落"],
        "reasoning": "多空均衡，暂不建仓。",
    },
}


class Router:
    """The scripted provider's answer function: by schema name, with per-schema overrides.

    `broken` schemas answer text that is not JSON (the agent fails after its repair attempt);
    `barrier` makes the listed schemas wait for each other, proving they run at the same time.
    """

    def __init__(self) -> None:
        self.broken: set[str] = set()
        self.calls: list[str] = []
        self.barrier: tuple[set[str], threading.Barrier] | None = None
        self._lock = threading.Lock()

    def __call__(self, request: CompletionRequest) -> str:
        name = request.schema_name
        with self._lock:
            self.calls.append(name)
        if self.barrier and name in self.barrier[0]:
            self.barrier[1].wait()
        if name in self.broken:
            return "sorry, no JSON today"
        return json.dumps(ANSWERS[name], ensure_ascii=False)

    def count(self, name: str) -> int:
        return self.calls.count(name)


NEWS_TITLES = (
    "示例银行 业绩 公告：上半年净利润增长",
    "央行 货币政策 利率 调整，银行 行业 景气 回升",
    "示例银行 重大事件：股东 增持 公告",
)


def add_news(container: AppContainer) -> None:
    """A few stored articles before the analysis date, so macro and catalyst have something to read."""
    rows = [
        {"symbol": SYMBOL, "published_at": f"2024-06-{10 + i}T08:00:00", "title": title, "summary": title,
         "body": title * 3, "url": f"https://news.example.com/{i}", "source": "news.example.com"}
        for i, title in enumerate(NEWS_TITLES)
    ]  # fmt: skip
    frames = {"news": pd.DataFrame(rows).assign(published_at=lambda f: pd.to_datetime(f["published_at"]))}
    MarketDataImportService(SqlMarketDataRepository(container.database)).import_frames("news", frames)


def pipeline(
    settings: Settings, router: Router | None = None, *, with_news: bool = False
) -> tuple[AppContainer, Router, ScriptedProvider]:
    """The real container: store with one security, real research/debate/judge, scripted LLM."""
    router = router or Router()
    answer: Callable[[CompletionRequest], str] = router
    provider = ScriptedProvider([answer])
    container = AppContainer(settings)
    populate_store(container.database, SYMBOL)
    if with_news:
        add_news(container)
    container.__dict__["llm_service"] = scripted_service(provider, database=container.database)
    return container, router, provider
