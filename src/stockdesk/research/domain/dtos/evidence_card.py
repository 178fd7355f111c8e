"""Evidence card: one snapshot figure worded and signed by code.

Why: a small model misreads signs and invents numbers when it words figures itself (it wrote
"营收同比增长" beside revenue_yoy -13.74). A card carries the figure, its text and its direction,
all decided by documented rules in code (`stockdesk.research.application.evidence_cards`), so a
model later only has to pick card ids.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Direction = Literal[-1, 0, 1]


class EvidenceCard(BaseModel):
    """Immutable: a card is a fact about one snapshot, never edited after it is built."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description='stable "<short>.<figure>", e.g. valuation.pe_percentile, technical.ma20')
    expert: str = Field(description="the expert's full name, e.g. valuation_modeler")
    text_zh: str = Field(description="one short phrase worded by code from the figure")
    text_en: str = Field(description="the same phrase in English")
    direction: Direction = Field(description="how a bull (+1) or bear (-1) reads it; 0: no direction")
    strength: float = Field(ge=0.0, le=1.0, description="how far the figure is from neutral, 0..1")
    figures: dict[str, float] = Field(
        description="the snapshot's own number(s) the text quotes, by snapshot field name"
    )
