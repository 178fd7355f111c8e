"""What a debater reads about one research expert: its call, why, its risks and a few key numbers.

The full research results are large (prompts, raw output, whole snapshots); the debate gets only
this digest of each, so the advocates' prompts stay short and every number in them comes from code.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class ExpertDigest(BaseModel):
    expert: str = Field(description="research expert name, e.g. technical_analyst")
    signal: str = Field(description="the expert's verdict word as it gave it (Bullish, Undervalued, ...)")
    confidence: float = Field(ge=0.0, le=1.0)
    key_reasoning: str = ""
    risk_warnings: list[str] = Field(default_factory=list)
    key_numbers: dict[str, Any] = Field(
        default_factory=dict, description="a few numbers from the expert's snapshot, computed in code"
    )
