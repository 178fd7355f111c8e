"""A code-only signal: what the rules (no LLM) read from one expert's snapshot."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Stance = Literal["bullish", "neutral", "bearish"]


class CodeSignal(BaseModel):
    expert: str
    stance: Stance
    score: float = Field(ge=-1.0, le=1.0, description="-1 most bearish .. +1 most bullish")
    confidence: float = Field(ge=0.0, le=1.0)
    reasons: list[str] = Field(default_factory=list, description="each rule that fired, with its number")
    i18n: dict[str, dict[str, list[str]]] = Field(
        default_factory=dict,
        description="language -> {'reasons': the same reasons in that language} (shared.wording); "
        "`reasons` keeps the Chinese the prompts read",
    )
    has_data: bool | None = Field(
        default=None,
        description="the snapshot held something the rules read (a number; for the search experts, "
        "a found item); False: an expert without data, missing rather than a voice. None: not told "
        "(results stored before the field): read confidence > 0",
    )
