"""Choices mode's verdict answer: the action, plan, horizon and confidence, and card ids only.

Why: the embedded model's reasoning argued for a BUY beside its own HOLD. Here it picks up to 3
decisive cards and up to 3 risk cards; code writes the reasoning and the risk warnings from them
(application/services/choice_verdict.py). The schema enumerates the cards' ids.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from stockdesk.judge.domain.dtos.verdict_result import TimeHorizon
from stockdesk.judge.domain.model.enums import ActionDirection


def verdict_choice_model(card_ids: list[str]) -> type[BaseModel]:
    """The answer schema with the cards' ids as an enum (what llama.cpp's grammar enforces)."""
    ids: Any = Literal[tuple(card_ids)] if card_ids else str  # type: ignore[valid-type]
    return create_model(
        "VerdictChoice",
        action=(ActionDirection, ...),
        plan=(Literal["standard", "conservative"], "standard"),
        confidence=(float, Field(ge=0.0, le=1.0)),
        time_horizon=(TimeHorizon, ...),
        decisive=(list[ids], Field(min_length=1, max_length=3)),
        risks=(list[ids], Field(default_factory=list, max_length=3)),
    )
