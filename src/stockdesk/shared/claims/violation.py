"""Violation: one claim in a model's text that the numbers it was given do not support."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, get_args

from pydantic import BaseModel, Field

ViolationKind = Literal[
    "unavailable_but_present",
    "direction_contradicts_sign",
    "ungrounded_number",
    "duplicate",
    "repetition",
    "unsupported_reference",
    "percentile_contradiction",
    "role_reversal",
    "side_contradiction",
    "action_contradiction",
    "cut_off",
    "trade_instruction",
]
ALL_KINDS: tuple[ViolationKind, ...] = tuple(
    kind for kind in get_args(ViolationKind) if kind != "trade_instruction"
)  # what check_claims runs by default; trade_instruction is the research guard's own


class Violation(BaseModel):
    """Where (field, bullet index), what (the sentence or repeated clause) and why (Chinese detail).

    `text` is the unit `drop_violating` removes: the sentence of a prose field, the repeated
    clause for `repetition`; in a list field the whole bullet `item` goes.
    """

    kind: ViolationKind
    field: str
    item: int | None = Field(default=None, description="bullet index in a list field")
    text: str
    detail: str = Field(description="what contradicts what, in Chinese: shown to the model and the reader")
    term: str = Field(default="", description="the number, metric, word or phrase at issue")

    def where(self) -> str:
        """The field as a reader names it: `key_risks 第 2 条`, `dimension_analyses.0.assessment`."""
        name = self.field.replace("[].", ".")
        return name if self.item is None else f"{name} 第 {self.item + 1} 条"


def dump_violations(violations: Iterable[Violation]) -> list[dict[str, Any]]:
    """The violations as JSON-ready dicts: what a claim-check record stores."""
    return [v.model_dump() for v in violations]
