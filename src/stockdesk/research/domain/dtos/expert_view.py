"""ExpertView: the one contract every research expert publishes to the rest of the desk.

Why one type: the debate, the judge, the coordinator's aggregation, evaluation and the reports
used to read each expert's own result fields back out of dicts through lists of synonyms (four
names for a stance, five for the reasoning). The view is built once, in research, from the typed
result; everyone downstream reads these fields and nothing else.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from stockdesk.research.domain.dtos.code_signal import CodeSignal, Stance
from stockdesk.research.domain.dtos.evidence_card import EvidenceCard

Figure = float | int | str | bool


class ExpertView(BaseModel):
    expert: str = Field(description="research expert name, e.g. technical_analyst")
    stance: Stance = Field(description="the expert's call, in the desk's three words")
    confidence: float = Field(ge=0.0, le=1.0)
    signal: str = Field(default="", description="the expert's own word as it gave it (Undervalued, ...)")
    has_data: bool = Field(
        default=True, description="False: its snapshot held nothing to read; missing, not a voice"
    )
    code_signal: CodeSignal | None = Field(default=None, description="what the rules read, no LLM")
    key_figures: dict[str, Figure] = Field(
        default_factory=dict, description="a few numbers from the snapshot, computed in code"
    )
    cards: list[EvidenceCard] = Field(
        default_factory=list, description="the snapshot's figures worded and signed by code"
    )
    text: str = Field(default="", description="the expert's reasoning as it wrote it (may be empty)")
    risks: list[str] = Field(default_factory=list, description="risks the expert named")
    i18n: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="language -> {'text': ...} when code wrote the text (rules-only: the code "
        "signal's reasons) (shared.wording)",
    )

    def card(self, card_id: str) -> EvidenceCard | None:
        return next((c for c in self.cards if c.id == card_id), None)
