"""Claim: one clause of one field's text, with the sentence it would take with it when dropped."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from stockdesk.shared.claims.text_units import units
from stockdesk.shared.claims.violation import Violation, ViolationKind

Texts = Mapping[str, str | Sequence[str]]


@dataclass(frozen=True)
class Claim:
    field: str
    item: int | None
    sentence: str
    clause: str

    def violation(self, kind: ViolationKind, detail: str, term: str = "") -> Violation:
        return Violation(
            kind=kind, field=self.field, item=self.item, text=self.sentence, detail=detail, term=term
        )


def field_items(value: str | Sequence[str]) -> list[tuple[int | None, str]]:
    """A prose field is one text; a list field is its bullets, by index."""
    if isinstance(value, str):
        return [(None, value)]
    return [(i, text) for i, text in enumerate(value) if isinstance(text, str)]


def claims_of(field: str, item: int | None, text: str) -> Iterator[Claim]:
    for sentence, parts in units(text):
        for clause in parts:
            yield Claim(field, item, sentence, clause)
