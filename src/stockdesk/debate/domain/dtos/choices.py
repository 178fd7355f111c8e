"""Choices mode: what a debate agent returns when it only picks and ranks evidence cards.

Why: a 1.5B model on two cores writes Chinese prose that argues against its own numbers, repeats
itself and stops mid-sentence. In choices mode it answers a few ids from the cards code wrote, and
code words every sentence (application/choice_text.py). The schema the model is given enumerates
the card ids of this debate (`choice_model`), so a grammar-constrained model cannot name a card
that does not exist; the direction rules (a bull supports only with cards read bullish or neutral)
are enforced in code after the answer (application/choices.py).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from stockdesk.debate.domain.model.enums import DebateDirection

ChoiceRole = Literal["bull", "bear", "resolution"]


class AdvocateChoice(BaseModel):
    """Bull or bear: up to 3 supporting cards ranked by weight, up to 2 cards conceded to the other side."""

    support: list[str] = Field(min_length=1, max_length=3)
    concede: list[str] = Field(default_factory=list, max_length=2)


class ResolutionChoice(BaseModel):
    """The moderator: a direction, its confidence, the decisive cards, the disagreements as card pairs."""

    direction: DebateDirection
    confidence: float = Field(ge=0.0, le=1.0)
    decisive: list[str] = Field(min_length=1, max_length=3)
    disagreements: list[list[str]] = Field(default_factory=list, max_length=2)


SCHEMA_NAMES = {"bull": "BullChoice", "bear": "BearChoice", "resolution": "ResolutionChoice"}


def choice_model(role: ChoiceRole, card_ids: list[str]) -> type[BaseModel]:
    """The answer schema for `role` with card ids as an enum (what llama.cpp's grammar enforces)."""
    ids: Any = Literal[tuple(card_ids)] if card_ids else str  # type: ignore[valid-type]
    if role == "resolution":
        pair = list[ids]
        return create_model(
            SCHEMA_NAMES[role],
            direction=(DebateDirection, ...),
            confidence=(float, Field(ge=0.0, le=1.0)),
            decisive=(list[ids], Field(min_length=1, max_length=3)),
            disagreements=(list[pair], Field(default_factory=list, max_length=2)),
        )
    return create_model(
        SCHEMA_NAMES[role],
        support=(list[ids], Field(min_length=1, max_length=3)),
        concede=(list[ids], Field(default_factory=list, max_length=2)),
    )
