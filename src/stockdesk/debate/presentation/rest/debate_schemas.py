"""Request schema of POST /api/v1/debate/run (the response is DebateOutcomeDTO)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from stockdesk.debate.application import DebateMode
from stockdesk.shared.dates import IsoDay
from stockdesk.shared.symbol_text import SymbolText


class DebateRequest(BaseModel):
    symbol: SymbolText = Field(min_length=1, examples=["600519.SH"])
    expert_results: dict[str, dict[str, Any]] = Field(
        min_length=1,
        max_length=5,
        description="research results by expert name (valuation_modeler, technical_analyst, "
        "financial_auditor, macro_intelligence, catalyst_detective), each a research result DTO as JSON "
        "or an ExpertView "
        "{stance, confidence, signal, cards, key_figures, text, risks}",
    )
    mode: DebateMode = Field(default=DebateMode.BULL_BEAR, description="bull-bear | panel")
    as_of: IsoDay | None = Field(default=None, description="analysis date (panel mode); default today")
