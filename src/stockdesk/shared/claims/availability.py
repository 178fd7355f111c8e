"""unavailable_but_present: "ROE 数据不足" while the input holds roe 4.46.

The word is said about the metrics named between the last number before it and itself
("PE 15.0，PS N/A": only PS), or, with nothing there, a metric right after it ("缺失 ROE 数据").
A trend, a comparison or a forecast of a metric may well be unavailable when the value is not.
"""

from __future__ import annotations

import re

from stockdesk.shared.claims.facts import Facts
from stockdesk.shared.claims.grounding import NUMBER
from stockdesk.shared.claims.metrics import Mention, find_metrics
from stockdesk.shared.claims.scope import Claim
from stockdesk.shared.claims.text_units import negated
from stockdesk.shared.claims.violation import Violation
from stockdesk.shared.claims.words import UNAVAILABLE

PREFIX_GAP = 1  # "缺失 ROE", "缺失的ROE": the metric follows the word directly
_ABOUT_SOMETHING_ELSE = re.compile(
    r"趋势|走势|变化|同比|环比|历史|预测|预期|明细|构成|拆分|细分|行业|同行|对比|比较|季度|分季|"
    r"\b(?:trend|history|forecast|peer|breakdown)\b",
    re.IGNORECASE,
)


def _numbers_outside(clause: str, mentions: list[Mention]) -> list[int]:
    """Where numbers start, leaving out digits inside metric names (MA20, RSI14, 近20日)."""
    spans = [(m.start, m.end) for m in mentions]
    return [
        n.start()
        for n in NUMBER.finditer(clause)
        if not any(start <= n.start() < end for start, end in spans)
    ]


def _said_unavailable(clause: str, mentions: list[Mention], start: int, end: int) -> list[Mention]:
    numbers = _numbers_outside(clause, mentions)
    floor = max((n for n in numbers if n < start), default=-1)
    before = [m for m in mentions if floor < m.start and m.end <= start]
    if before:
        return [m for m in before if not _ABOUT_SOMETHING_ELSE.search(clause[m.end : start])]
    after = [m for m in mentions if m.start >= end]
    return after[:1] if after and len(clause[end : after[0].start].strip()) <= PREFIX_GAP else []


def unavailable_but_present(claim: Claim, facts: Facts) -> list[Violation]:
    clause = claim.clause
    words = [w for w in UNAVAILABLE.finditer(clause) if not negated(clause[: w.start()])]
    if not words:
        return []
    mentions = find_metrics(clause)
    found: list[Violation] = []
    for word in words:
        for mention in _said_unavailable(clause, mentions, word.start(), word.end()):
            metric = mention.metric
            present = facts.has_number(metric.keys) if metric.availability else None
            if present is None:
                continue
            key, value = present
            detail = (
                f"「{claim.sentence}」说 {metric.name}“{word.group(0)}”，但输入中有 {key}={value:g}："
                f"应引用这个数值，而不是说数据不足。"
            )
            found.append(claim.violation("unavailable_but_present", detail, metric.name))
    return found
