"""Choices mode for a research expert: its call, its confidence and the cards it weighs most.

Why: a 1.5B model on two cores spends a minute writing an expert's Chinese paragraph, and the
paragraph misreads signs and cuts itself off. In choices mode the model answers the expert's own
verdict word, a confidence, up to 3 evidence card ids ranked by weight and at most one short note
(asked to keep within 40 characters); code words every field of the expert's result from those
picks (application/expert_choice_text.py).

The schema a model is given (`expert_choice_model`) enumerates the verdict words and this
snapshot's card ids, so a grammar-constrained model cannot name a word or a card that does not
exist. Whether a picked card agrees with the verdict (a bullish call resting on a card code reads
bearish) is checked in code after the answer (application/expert_choices.py).
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, Field, create_model

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


def expert_choice_model(words: tuple[str, ...], card_ids: list[str]) -> type[BaseModel]:
    """The answer schema: `verdict` one of `words`, `cards` up to 3 of `card_ids` (an enum, none
    when the snapshot has no card), `note` free text the prompt asks to keep short."""
    verdict: Any = Literal[words]  # type: ignore[valid-type]
    if card_ids:
        card: Any = Literal[tuple(card_ids)]  # type: ignore[valid-type]
        cards: tuple[Any, Any] = (list[card], Field(default_factory=list, max_length=MAX_CARDS))
    else:
        cards = (list[str], Field(default_factory=list, max_length=0))
    return create_model(
        "ExpertChoiceAnswer",
        verdict=(verdict, ...),
        confidence=(float, Field(ge=0.0, le=1.0)),
        cards=cards,
        note=(str, Field(default="", description=f"可空；不超过 {NOTE_CHARS} 个字")),
    )
