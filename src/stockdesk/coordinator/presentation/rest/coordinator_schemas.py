"""Request body of POST /api/v1/coordinator/research."""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic import BaseModel, Field

from stockdesk.coordinator.application import ALL_EXPERTS, DebateModeName, ExpertName, ResearchRequest


class ResearchBody(BaseModel):
    symbol: str = Field(min_length=1, examples=["600519.SH"])
    experts: list[ExpertName] = Field(default_factory=lambda: list(ALL_EXPERTS))
    options: dict[str, Any] = Field(default_factory=dict)
    skip_debate: bool = False
    debate_mode: DebateModeName = DebateModeName.BULL_BEAR
    as_of: date | None = None

    def to_request(self) -> ResearchRequest:
        return ResearchRequest(**self.model_dump())
