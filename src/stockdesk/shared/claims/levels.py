"""percentile_contradiction: "PE 处于历史高位" with pe_percentile 14; "RSI 超买" with rsi14 45.

A percentile (0-100) below 40 is not high and above 60 is not low. For a multiple itself (PE, PB,
PS) only words about its own history count ("历史高位", "低于历史"): "PE 较高" may compare with
anything. RSI is read the same way, and "超买"/"超卖" on the wrong side of 50 contradict it.
"""

from __future__ import annotations

import re

from stockdesk.shared.claims.facts import Facts
from stockdesk.shared.claims.metrics import find_metrics, nearest_before
from stockdesk.shared.claims.scope import Claim
from stockdesk.shared.claims.text_units import negated
from stockdesk.shared.claims.violation import Violation
from stockdesk.shared.claims.words import (
    HIGH_HISTORICAL,
    HIGH_LEVEL,
    LOW_HISTORICAL,
    LOW_LEVEL,
    OVERBOUGHT,
    OVERSOLD,
)

HIGH_BELOW = 40.0  # "high" contradicts a percentile under this ...
LOW_ABOVE = 60.0  # ... and "low" one over this
MIDDLE = 50.0  # overbought / oversold on the wrong side of the middle

# (pattern, +1 high / -1 low, about its own history, overbought/oversold)
_LEVEL_WORDS = (
    (HIGH_HISTORICAL, 1, True, False),
    (LOW_HISTORICAL, -1, True, False),
    (OVERBOUGHT, 1, False, True),
    (OVERSOLD, -1, False, True),
    (HIGH_LEVEL, 1, False, False),
    (LOW_LEVEL, -1, False, False),
)


def _level_words(clause: str) -> list[tuple[re.Match[str], int, bool, bool]]:
    found = [(m, side, hist, osc) for p, side, hist, osc in _LEVEL_WORDS for m in p.finditer(clause)]
    found.sort(key=lambda f: (f[0].start(), -(f[0].end() - f[0].start())))
    kept: list[tuple[re.Match[str], int, bool, bool]] = []
    for item in found:
        if not kept or item[0].start() >= kept[-1][0].end():
            kept.append(item)
    return kept


def _contradicts(value: float, side: int, oscillator_word: bool) -> bool:
    if oscillator_word:
        return value < MIDDLE if side > 0 else value > MIDDLE
    return value < HIGH_BELOW if side > 0 else value > LOW_ABOVE


def percentile_contradiction(claim: Claim, facts: Facts) -> list[Violation]:
    clause = claim.clause
    words = _level_words(clause)
    if not words:
        return []
    mentions = find_metrics(clause)
    found: list[Violation] = []
    for word, side, historical, oscillator_word in words:
        if any(m.start <= word.start() < m.end for m in mentions) or negated(clause[: word.start()]):
            continue
        mention = nearest_before(mentions, word.start(), {"percentile", "multiple", "oscillator"})
        if mention is None:
            continue
        metric = mention.metric
        if metric.kind == "multiple":
            keys = metric.percentile_keys if historical else ()
        elif metric.kind == "oscillator":
            keys = metric.keys
        else:
            keys = () if oscillator_word else metric.keys
        value = facts.number(keys) if keys else None
        if value is None or not _contradicts(value[1], side, oscillator_word):
            continue
        scale = "超买在 70 以上、超卖在 30 以下" if metric.kind == "oscillator" else "0-100，越低越便宜"
        detail = (
            f"「{claim.sentence}」说 {metric.name}“{word.group(0)}”，但输入中 {value[0]}={value[1]:g}"
            f"（{scale}），与这个说法相反。"
        )
        found.append(claim.violation("percentile_contradiction", detail, metric.name))
    return found
