"""Request schema of POST /api/v1/judge/verdict (the response is VerdictDTO)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from stockdesk.shared.symbol_text import SymbolText


class VerdictRequest(BaseModel):
    symbol: SymbolText = Field(min_length=1, examples=["600519.SH"])
    debate_outcome: dict[str, Any] = Field(
        min_length=1,
        description="a DebateOutcomeDTO as JSON: direction, confidence, bull_case, bear_case, risk_matrix, "
        "key_disagreements, conflict_resolution",
    )
    evidence: dict[str, Any] = Field(
        default_factory=dict,
        description="optional: stances {expert: bullish|neutral|bearish}, code_signals {expert: {stance, "
        "score, confidence}}, technical (a technical snapshot: close, atr14, support_levels, ...)",
    )
    samples: int = Field(default=1, ge=1, le=9, description="seeded judge runs for verdict stability")
