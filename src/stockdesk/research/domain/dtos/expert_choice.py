"""Choices mode for a research expert: its call, its confidence and the cards it weighs most.

Why: a 1.5B model on two cores spends a minute writing an expert's Chinese paragraph, and the
paragraph misreads signs and cuts itself off. In choices mode the model answers the expert's own
verdict word, a confidence, up to 3 evidence card ids ranked by weight and at most one short note
(asked to keep within 40 characters); code words every field of the expert's result from those
picks (application/expert_choice_text.py).

The schema a model is given (`expert_choice_model`) enumerates the verdict words and, for each, the
card ids that may support it, so a grammar-constrained model cannot name a word or a card that does
not exist, nor rest a bullish call on a card code reads bearish. Every answer is checked in code as
well (application/expert_choices.py): a provider without a grammar is held to the same rule.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, create_model

MAX_CARDS = 3
NOTE_CHARS = 40


class ExpertChoice(BaseModel):
    """The picks kept, as the result stores them for the audit trail."""

    verdict: str = Field(description="the expert's own verdict word (Undervalued, BULLISH, ...)")
    confidence: float = Field(ge=0.0, le=1.0)
    cards: list[str] = Field(default_factory=list, description="card ids, the weightiest first")
    note: str = Field(default="", description=f"the model's own note (asked for <= {NOTE_CHARS} characters)")
    first_wrong: list[str] = Field(default_factory=list, description="what the first answer got wrong")
    retried: bool = False
    dropped: list[str] = Field(default_factory=list, description="picks (or the note) still wrong: removed")


def verdict_words(output_model: type[BaseModel], field: str) -> tuple[str, ...]:
    """The verdict words an expert's prose answer allows (its Literal field), for its choice."""
    return tuple(get_args(output_model.model_fields[field].annotation))


def _variant(word: str, ids: list[str], notes: bool) -> dict[str, Any]:
    cards: dict[str, Any] = {"type": "array", "maxItems": MAX_CARDS if ids else 0}
    if ids:
        cards["items"] = {"type": "string", "enum": ids}
    return {
        "type": "object",
        "properties": {
            "verdict": {"type": "string", "enum": [word]},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "cards": cards,
            **({"note": {"type": "string"}} if notes else {}),
        },
        "required": ["verdict", "confidence", "cards", *(["note"] if notes else [])],
    }


def expert_choice_model(
    allowed: dict[str, list[str]], card_ids: list[str], *, notes: bool = True
) -> type[BaseModel]:
    """The answer model: `verdict` one of `allowed`'s words, `cards` up to 3 of `card_ids`, `note`
    free text the prompt asks to keep short (not offered when `notes` is False: it stays "").

    The schema a model is given is one alternative per verdict word whose cards enumerate only the
    ids `allowed[word]` lists (what llama.cpp's grammar enforces): a grammar-constrained model that
    calls BULLISH cannot then pick a card code reads bearish. Validation accepts any of `card_ids`,
    so a provider without a grammar is answered by the code's check (re-asked once, then dropped).
    """
    verdict: Any = Literal[tuple(allowed)]  # type: ignore[valid-type]
    if card_ids:
        card: Any = Literal[tuple(card_ids)]  # type: ignore[valid-type]
        cards: tuple[Any, Any] = (list[card], Field(default_factory=list, max_length=MAX_CARDS))
    else:
        cards = (list[str], Field(default_factory=list, max_length=0))
    variants = [_variant(word, ids, notes) for word, ids in allowed.items()]

    def by_verdict(schema: dict[str, Any]) -> None:
        title = schema.get("title")
        schema.clear()
        schema.update({"title": title, "anyOf": variants})

    return create_model(
        "ExpertChoiceAnswer",
        __config__=ConfigDict(json_schema_extra=by_verdict),
        verdict=(verdict, ...),
        confidence=(float, Field(ge=0.0, le=1.0)),
        cards=cards,
        note=(str, Field(default="", description=f"可空；不超过 {NOTE_CHARS} 个字")),
    )
