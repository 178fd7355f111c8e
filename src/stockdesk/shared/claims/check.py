"""check_claims: every check over a model's texts, keyed by field so each violation names its field."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from stockdesk.shared.claims.availability import unavailable_but_present
from stockdesk.shared.claims.direction import direction_contradicts_sign
from stockdesk.shared.claims.facts import read_facts
from stockdesk.shared.claims.grounding import is_grounded, numbers_in_text, snapshot_numbers
from stockdesk.shared.claims.levels import percentile_contradiction
from stockdesk.shared.claims.references import input_has_reference, unsupported_reference
from stockdesk.shared.claims.repetition import duplicates, repetition
from stockdesk.shared.claims.roles import role_reversal
from stockdesk.shared.claims.scope import Claim, Texts, claims_of, field_items
from stockdesk.shared.claims.text_units import normalise, sentences, without_link
from stockdesk.shared.claims.violation import ALL_KINDS, Violation, ViolationKind

MIN_QUOTE = 6  # a clause this long found in the input text is a quote of it, not a claim of one's own
CLAUSE_CHECKS = {
    "unavailable_but_present": unavailable_but_present,
    "direction_contradicts_sign": direction_contradicts_sign,
    "percentile_contradiction": percentile_contradiction,
}


def _ungrounded(field: str, item: int | None, text: str, known: list[float]) -> list[Violation]:
    found = []
    for sentence in sentences(text):
        for token in numbers_in_text(sentence):
            if not is_grounded(token, known):
                detail = f"「{sentence}」中的数字 {token} 不在输入数据中：只引用输入给出的数值。"
                found.append(
                    Claim(field, item, sentence, sentence).violation("ungrounded_number", detail, token)
                )
    return found


def check_claims(
    texts: Texts,
    facts: Any,
    *,
    role: str | None = None,
    checks: Collection[ViolationKind] | None = None,
) -> list[Violation]:
    """Violations in `texts` ({field: prose or bullets}) against `facts` (the input the model saw).

    `role` ("bull" / "bear") turns on role_reversal for a `core_thesis` field; `checks` limits the
    kinds run (all of ALL_KINDS by default). A clause found word for word in the input's text is
    a quote and not checked as a claim. Each violation is reported once.
    """
    kinds = set(ALL_KINDS if checks is None else checks)
    known = read_facts(facts)
    numbers = snapshot_numbers(facts) if "ungrounded_number" in kinds else []
    supported = input_has_reference(known) if "unsupported_reference" in kinds else True
    shown = normalise(known.text)
    found: list[Violation] = []
    for field, value in texts.items():
        items = field_items(value)
        if "duplicate" in kinds and not isinstance(value, str):
            found += duplicates(field, [text for _, text in items])
        for item, text in items:
            if "repetition" in kinds:
                found += repetition(field, item, text)
            if "ungrounded_number" in kinds:
                found += _ungrounded(field, item, text, numbers)
            for claim in claims_of(field, item, text):
                quoted = normalise(without_link(claim.clause))
                if len(quoted) >= MIN_QUOTE and quoted in shown:
                    continue  # the debate quoting an expert's words: that expert answers for them
                for kind, check in CLAUSE_CHECKS.items():
                    if kind in kinds:
                        found += check(claim, known)
                if "unsupported_reference" in kinds:
                    found += unsupported_reference(claim, known, supported=supported)
        if "role_reversal" in kinds and isinstance(value, str):
            found += role_reversal(field, value, role)
    return list({(v.kind, v.field, v.item, v.text, v.term): v for v in found}.values())
