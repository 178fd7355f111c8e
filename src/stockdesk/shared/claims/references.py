"""unsupported_reference: comparing with an industry average, peers or comparable companies
that the input never gave ("ROE 高于行业平均" with no industry figure anywhere). Naming one
without a comparison ("跟踪行业平均值", "同行竞争加剧") claims nothing about it."""

from __future__ import annotations

from stockdesk.shared.claims.facts import Facts
from stockdesk.shared.claims.scope import Claim
from stockdesk.shared.claims.text_units import negated
from stockdesk.shared.claims.violation import Violation
from stockdesk.shared.claims.words import (
    ABSENCE_BEFORE,
    COMPARISON,
    HEDGE,
    PEERS,
    PLACED_AT,
    REFERENCE,
    REFERENCE_FIELD,
)


def input_has_reference(facts: Facts) -> bool:
    """A benchmark is in the input: a field for it, or the words in some text the model was shown."""
    text = facts.text
    return (
        any(REFERENCE_FIELD.search(word) for word in facts.words)
        or bool(REFERENCE.search(text))
        or bool(PEERS.search(text))
    )


def unsupported_reference(claim: Claim, facts: Facts, *, supported: bool) -> list[Violation]:
    if supported or HEDGE.search(claim.clause):
        return []
    found: list[Violation] = []
    compares = bool(COMPARISON.search(claim.clause))
    words = list(REFERENCE.finditer(claim.clause)) if compares or PLACED_AT.search(claim.clause) else []
    if compares:
        words += PEERS.finditer(claim.clause)
    for word in words:
        before = claim.clause[: word.start()]
        if ABSENCE_BEFORE.search(before) or negated(before):
            continue  # "缺少行业平均数据" says the benchmark is missing: true
        detail = (
            f"「{claim.sentence}」与“{word.group(0)}”比较，但输入中没有任何行业、同行或可比公司的数据："
            f"只能与输入给出的数值和该股自身历史比较。"
        )
        found.append(claim.violation("unsupported_reference", detail, word.group(0)))
    return found
