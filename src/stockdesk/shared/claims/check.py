"""check_claims: every check over a model's texts, keyed by field so each violation names its field."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from stockdesk.shared.claims.actions import action_contradiction
from stockdesk.shared.claims.availability import unavailable_but_present
from stockdesk.shared.claims.cards import Card, find_cards
from stockdesk.shared.claims.cutoff import cut_off
from stockdesk.shared.claims.direction import direction_contradicts_sign
from stockdesk.shared.claims.facts import Facts, read_facts
from stockdesk.shared.claims.grounding import is_grounded, numbers_in_text, snapshot_numbers
from stockdesk.shared.claims.levels import percentile_contradiction
from stockdesk.shared.claims.references import input_has_reference, unsupported_reference
from stockdesk.shared.claims.repetition import duplicates, repetition
from stockdesk.shared.claims.roles import role_reversal
from stockdesk.shared.claims.scope import Claim, Texts, claims_of, field_items
from stockdesk.shared.claims.sides import side_contradiction
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


@dataclass(frozen=True)
class _Round:
    """What every field of one check_claims call is checked against."""

    kinds: set[ViolationKind]
    known: Facts
    numbers: list[float]
    supported: bool
    shown: str
    role: str | None
    action: str | None
    cards: list[Card]


def _clause_checks(run: _Round, field: str, item: int | None, text: str) -> list[Violation]:
    found: list[Violation] = []
    for claim in claims_of(field, item, text):
        quoted = normalise(without_link(claim.clause))
        if len(quoted) >= MIN_QUOTE and quoted in run.shown:
            continue  # the debate quoting an expert's words: that expert answers for them
        for kind, check in CLAUSE_CHECKS.items():
            if kind in run.kinds:
                found += check(claim, run.known)
        if "unsupported_reference" in run.kinds:
            found += unsupported_reference(claim, run.known, supported=run.supported)
    return found


def _text_checks(run: _Round, field: str, item: int | None, text: str, *, prose: bool) -> list[Violation]:
    """The checks of one prose field or one bullet: whole-text checks, then its clauses."""
    found: list[Violation] = []
    if "repetition" in run.kinds:
        found += repetition(field, item, text)
    if "ungrounded_number" in run.kinds:
        found += _ungrounded(field, item, text, run.numbers)
    if "cut_off" in run.kinds:
        found += cut_off(field, item, text, prose=prose)
    if "action_contradiction" in run.kinds:
        found += action_contradiction(field, item, text, run.action)
    return found + _clause_checks(run, field, item, text)


def _field_checks(run: _Round, field: str, value: str | Sequence[str]) -> list[Violation]:
    found: list[Violation] = []
    prose = isinstance(value, str)
    if "duplicate" in run.kinds and not prose:
        found += duplicates(field, [text for _, text in field_items(value)])
    for item, text in field_items(value):
        found += _text_checks(run, field, item, text, prose=prose)
    if "role_reversal" in run.kinds and isinstance(value, str):
        found += role_reversal(field, value, run.role)
    if "side_contradiction" in run.kinds:
        found += side_contradiction(field, value, run.role, run.cards)
    return found


def check_claims(
    texts: Texts,
    facts: Any,
    *,
    role: str | None = None,
    action: str | None = None,
    checks: Collection[ViolationKind] | None = None,
) -> list[Violation]:
    """Violations in `texts` ({field: prose or bullets}) against `facts` (the input the model saw).

    `role` ("bull" / "bear") turns on role_reversal for a `core_thesis` field and
    side_contradiction for the advocate's own case (thesis, supporting arguments; against the
    evidence cards anywhere in `facts` too); `action` (the judge's BUY / SELL / HOLD) turns on
    action_contradiction; `checks` limits the kinds run (all of ALL_KINDS by default). A clause
    found word for word in the input's text is a quote and not checked as a claim (the side and
    action checks read quotes too: quoting the other side is arguing it). Each violation is
    reported once.
    """
    kinds = set(ALL_KINDS if checks is None else checks)
    known = read_facts(facts)
    run = _Round(
        kinds=kinds,
        known=known,
        numbers=snapshot_numbers(facts) if "ungrounded_number" in kinds else [],
        supported=input_has_reference(known) if "unsupported_reference" in kinds else True,
        shown=normalise(known.text),
        role=role,
        action=action,
        cards=find_cards(facts) if "side_contradiction" in kinds and role else [],
    )
    found: list[Violation] = []
    for field, value in texts.items():
        found += _field_checks(run, field, value)
    return list({(v.kind, v.field, v.item, v.text, v.term): v for v in found}.values())
