"""ExpertViews and advocates' cases as the short Chinese text the debate prompts show."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from stockdesk.debate.domain.dtos.bull_bear import BearArgument, BullArgument
from stockdesk.research.application import EvidenceCard, ExpertView
from stockdesk.shared.claims import card_line

NONE = "（无）"
EXPERT_LABELS = {
    "valuation_modeler": "估值建模师",
    "technical_analyst": "技术分析师",
    "financial_auditor": "财务审计师",
    "macro_intelligence": "宏观情报员",
    "catalyst_detective": "催化剂侦探",
}


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, bool) else str(value)


def _joined(items: Sequence[str]) -> str:
    return "；".join(items) if items else NONE


STANCE_ZH = {"bullish": "看多", "neutral": "中性", "bearish": "看空"}


def render_card(card: EvidenceCard) -> str:
    """`[id] text（↑利多）`: the id a choice names, the code's words and the code's direction."""
    return card_line(card.id, card.text_zh, card.direction)


def render_digest(view: ExpertView) -> str:
    """One expert as the debaters read it: its call, its evidence cards (else its own text)."""
    label = EXPERT_LABELS.get(view.expert, view.expert)
    said = f"{STANCE_ZH[view.stance]}（{view.signal or view.stance}）"
    head = f"【{label}】结论 {said}，置信度 {view.confidence:.2f}"
    lines = [head]
    if view.cards:
        lines += [f"- 证据 {render_card(card)}" for card in view.cards]
    else:
        numbers = "，".join(f"{k}={_value(v)}" for k, v in view.key_figures.items()) or NONE
        lines += [f"- 理由：{view.text or NONE}", f"- 关键数字：{numbers}"]
    lines.append(f"- 风险：{_joined(view.risks)}")
    return "\n".join(lines)


def render_digests(views: Sequence[ExpertView]) -> str:
    return "\n\n".join(render_digest(v) for v in views)


def render_bull(bull: BullArgument) -> str:
    return "\n".join(
        [
            f"- 核心论点：{bull.core_thesis}",
            f"- 论据：{_joined(bull.supporting_arguments)}",
            f"- 承认的风险：{_joined(bull.acknowledged_risks)}",
        ]
    )


def render_bear(bear: BearArgument) -> str:
    return "\n".join(
        [
            f"- 核心论点：{bear.core_thesis}",
            f"- 论据：{_joined(bear.supporting_arguments)}",
            f"- 承认的优势：{_joined(bear.acknowledged_strengths)}",
        ]
    )
