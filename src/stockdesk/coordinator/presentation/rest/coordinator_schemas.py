"""Request body of POST /api/v1/coordinator/research."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from stockdesk.coordinator.application import ALL_EXPERTS, DebateModeName, ExpertName, ResearchRequest
from stockdesk.shared.dates import IsoDay
from stockdesk.shared.symbol_text import SymbolText


class ResearchBody(BaseModel):
    """Unknown fields are refused (a 400) rather than silently ignored: nothing here is decorative."""

    model_config = ConfigDict(extra="forbid")

    symbol: SymbolText = Field(min_length=1, examples=["600519.SH"])
    experts: list[ExpertName] = Field(default_factory=lambda: list(ALL_EXPERTS), min_length=1)
    skip_debate: bool = False
    debate_mode: DebateModeName = DebateModeName.BULL_BEAR
    as_of: IsoDay | None = None
    ignore_holdings: bool = Field(
        default=False, description="analyse as if the symbol were not held (no holder's plan)"
    )

    def to_request(self) -> ResearchRequest:
        return ResearchRequest(**self.model_dump())
