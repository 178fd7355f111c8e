"""An expert's result fields written by code from its choice (choices mode).

Every sentence quotes evidence cards (code's words for the snapshot's numbers) or states a code
figure, so it cannot contradict its numbers, be cut off or repeat itself. The verdict, the
confidence and which cards weigh most are the model's; the risks are the strongest cards code reads
against the verdict (for a neutral verdict: the strongest bearish ones), none of them picked.
"""

from __future__ import annotations

from typing import Any, get_args

from stockdesk.research.application.code_signals import financial_dimension_scores
from stockdesk.research.application.expert_views import STANCE_OF
from stockdesk.research.application.search_cards import SHORT
from stockdesk.research.domain.dtos.evidence_card import EvidenceCard
from stockdesk.research.domain.dtos.expert_choice import ExpertChoice
from stockdesk.research.domain.dtos.financial import Dimension, DimensionAnalysis, FinancialSnapshotDTO
from stockdesk.research.domain.dtos.search import SearchSnapshotDTO
from stockdesk.research.domain.dtos.soft_intel import IntelDimensionAnalysis
from stockdesk.research.domain.dtos.valuation import VERDICT_DISPLAY_LABELS, ValuationSnapshotDTO
from stockdesk.shared.numbers import finite_number

VERDICT_ZH = {
    **VERDICT_DISPLAY_LABELS,  # the valuation modeler's Undervalued / Fair / Overvalued
    "STRONG_BULLISH": "强烈看多", "BULLISH": "看多", "NEUTRAL": "中性",
    "BEARISH": "看空", "STRONG_BEARISH": "强烈看空",
    "Favorable": "有利", "Neutral": "中性", "Unfavorable": "不利",
    "Positive": "正面", "Negative": "负面",
}  # fmt: skip
AGAINST = {"bullish": -1, "bearish": 1, "neutral": -1}
MAX_RISKS = 2
TERMINAL = ("。", "！", "？", ".", "!", "?")
INSUFFICIENT = "数据不足"
# which financial dimension each financial card speaks to (the dimensions code scores)
CARD_DIMENSION = {
    "financial.revenue_yoy": "growth",
    "financial.profit_dedt_yoy": "growth",
    "financial.roe": "profitability",
    "financial.gross_margin": "profitability",
    "financial.cash_quality": "cash_quality",
    "financial.debt_to_assets": "solvency",
}
DIMENSIONS: tuple[str, ...] = get_args(Dimension)


def picked(choice: ExpertChoice, cards: list[EvidenceCard]) -> list[EvidenceCard]:
    by_id = {c.id: c for c in cards}
    return [by_id[i] for i in choice.cards if i in by_id]


def against(choice: ExpertChoice, cards: list[EvidenceCard]) -> list[EvidenceCard]:
    """The strongest cards read against the verdict and not picked, strongest first."""
    side = AGAINST[STANCE_OF.get(choice.verdict, "neutral")]
    pool = [c for c in cards if c.direction == side and c.id not in choice.cards]
    return sorted(pool, key=lambda c: -c.strength)[:MAX_RISKS]


def sentence(text: str) -> str:
    text = text.strip()
    return text if not text or text.endswith(TERMINAL) else f"{text}。"


def summary(choice: ExpertChoice, cards: list[EvidenceCard]) -> str:
    """`高估。依据：PE 历史分位 80（偏高）；…。模型补充：<note>`: the note, only when one was kept,
    is said to be the model's own words (checked, not written by code)."""
    head = f"{VERDICT_ZH.get(choice.verdict, choice.verdict)}。"
    chosen = picked(choice, cards)
    basis = (
        f"依据：{'；'.join(c.text_zh for c in chosen)}。" if chosen else "未选出与该判断方向一致的证据卡。"
    )
    note = f"模型补充：{sentence(choice.note)}" if choice.note.strip() else ""
    return head + basis + note


def risk_texts(choice: ExpertChoice, cards: list[EvidenceCard], none: str) -> list[str]:
    return [c.text_zh for c in against(choice, cards)] or [none]


def evidence_texts(choice: ExpertChoice, cards: list[EvidenceCard]) -> list[str]:
    return [c.text_zh for c in picked(choice, cards)]


def valuation_fields(
    choice: ExpertChoice, cards: list[EvidenceCard], snapshot: ValuationSnapshotDTO
) -> dict[str, Any]:
    """ValuationModelerResultDTO's LLM fields; the range states the one model code computes."""
    graham = finite_number(snapshot.graham_intrinsic_val)
    lower = f"格雷厄姆内在价值 {snapshot.graham_intrinsic_val}" if graham is not None else INSUFFICIENT
    return {
        "valuation_verdict": choice.verdict,
        "confidence_score": choice.confidence,
        "estimated_intrinsic_value_range": {"lower_bound": lower, "upper_bound": INSUFFICIENT},
        "key_evidence": evidence_texts(choice, cards) or ["未选出与该判断方向一致的证据卡"],
        "risk_factors": risk_texts(choice, cards, "未见与该判断相反的估值指标"),
        "reasoning_summary": summary(choice, cards),
    }


def technical_fields(choice: ExpertChoice, cards: list[EvidenceCard]) -> dict[str, Any]:
    """TechnicalAnalystResultDTO's LLM fields (the levels are code's swing levels, as in prose mode)."""
    risks = [c.text_zh for c in against(choice, cards)]
    return {
        "signal": choice.verdict,
        "confidence": choice.confidence,
        "evidence": evidence_texts(choice, cards),
        "risk_warning": f"{'；'.join(risks)}。" if risks else "未见与该判断相反的技术指标。",
        "summary_reasoning": summary(choice, cards),
    }


def _assessment(dimension: str, cards: list[EvidenceCard], score: int | None) -> str:
    texts = [c.text_zh for c in cards if CARD_DIMENSION.get(c.id) == dimension]
    if texts:
        return "；".join(texts)
    return f"代码评分 {score}" if score is not None else INSUFFICIENT


def financial_fields(
    choice: ExpertChoice, cards: list[EvidenceCard], snapshot: FinancialSnapshotDTO
) -> dict[str, Any]:
    """FinancialAuditorResultDTO's LLM fields; each dimension's assessment quotes its cards."""
    scores = financial_dimension_scores(snapshot.model_dump(mode="json"))
    return {
        "signal": choice.verdict,
        "confidence": choice.confidence,
        "dimension_analyses": [
            DimensionAnalysis(
                dimension=d, score=scores.get(d), assessment=_assessment(d, cards, scores.get(d))
            )
            for d in DIMENSIONS
        ],
        "key_risks": risk_texts(choice, cards, "未见与该判断相反的财务指标"),
        "summary_reasoning": summary(choice, cards),
    }


def _dimension(snapshot_dimension: Any, chosen: list[EvidenceCard]) -> IntelDimensionAnalysis:
    found = len(snapshot_dimension.items)
    mine = [c.text_zh for c in chosen if c.id.startswith(f"{SHORT[c.expert]}.{snapshot_dimension.name}.")]
    assessment = f"检索到 {found} 条资料。" if found else f"{INSUFFICIENT}：未检索到资料。"
    return IntelDimensionAnalysis(dimension=snapshot_dimension.topic, assessment=assessment, key_points=mine)


def search_fields(
    choice: ExpertChoice, cards: list[EvidenceCard], snapshot: SearchSnapshotDTO, urls: dict[str, str]
) -> dict[str, Any]:
    """A search expert's fields every search result shares: the summary quotes the articles picked
    (code cannot sign an article, so it lists none as an opportunity, a risk or a catalyst), each
    dimension says how much was found and which picked articles came from it, and the sources are
    the picked articles' URLs (all of them in the context by construction)."""
    chosen = picked(choice, cards)
    head = f"{VERDICT_ZH.get(choice.verdict, choice.verdict)}。"
    basis = f"所选资料：{'；'.join(c.text_zh for c in chosen)}。" if chosen else "未选出资料。"
    note = f"模型补充：{sentence(choice.note)}" if choice.note.strip() else ""
    return {
        "confidence_score": choice.confidence,
        "dimension_analyses": [_dimension(d, chosen) for d in snapshot.dimensions],
        "information_sources": [urls[c.id] for c in chosen if c.id in urls],
        "summary": head + basis + note,
    }
