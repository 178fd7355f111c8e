"""ExpertDigests and advocates' cases as the short Chinese text the debate prompts show."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from stockdesk.debate.domain.dtos.bull_bear import BearArgument, BullArgument
from stockdesk.debate.domain.dtos.expert_digest import ExpertDigest

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


def render_digest(digest: ExpertDigest) -> str:
    label = EXPERT_LABELS.get(digest.expert, digest.expert)
    numbers = "，".join(f"{k}={_value(v)}" for k, v in digest.key_numbers.items()) or NONE
    return "\n".join(
        [
            f"【{label}】结论 {digest.signal}，置信度 {digest.confidence:.2f}",
            f"- 理由：{digest.key_reasoning or NONE}",
            f"- 风险：{_joined(digest.risk_warnings)}",
            f"- 关键数字：{numbers}",
        ]
    )


def render_digests(digests: Sequence[ExpertDigest]) -> str:
    return "\n\n".join(render_digest(d) for d in digests)


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
