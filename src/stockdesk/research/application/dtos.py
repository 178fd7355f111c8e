"""Results research hands to callers (Coordinator, REST, CLI): parsed fields plus the audit trail."""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from stockdesk.research.domain.dtos.code_signal import CodeSignal
from stockdesk.research.domain.dtos.evidence_card import EvidenceCard
from stockdesk.research.domain.dtos.expert import GroundingReport, GuardReport
from stockdesk.research.domain.dtos.expert_choice import ExpertChoice
from stockdesk.research.domain.dtos.financial import DimensionAnalysis
from stockdesk.research.domain.dtos.soft_intel import Catalyst, IntelDimensionAnalysis
from stockdesk.research.domain.dtos.technical import KeyTechnicalLevels
from stockdesk.research.domain.dtos.valuation import IntrinsicValueRange


class ExpertTrace(BaseModel):
    """Put in by code, not by the model: what was sent, what came back, what the guards found."""

    symbol: str
    as_of: date
    input: str = Field(description="the user prompt sent to the model")
    output: str = Field(description="the model's raw answer")
    grounding: GroundingReport
    guards: GuardReport
    choice: ExpertChoice | None = Field(
        default=None, description="choices mode: the model's picks; code wrote the text fields from them"
    )
    code_signal: CodeSignal | None = Field(
        default=None, description="what the rules read in the same snapshot (set when the desk runs it)"
    )


# the snapshot's figures worded and signed by code (application/evidence_cards.py), so later steps
# read a figure's direction from code; the default [] keeps results stored before the cards valid
CARDS_DESCRIPTION = "the snapshot's figures worded and signed by code; [] in results stored before"
SEARCH_CARDS_DESCRIPTION = "choices mode: the articles the verdict rests on, quoted by code (direction 0)"


class ValuationModelerResultDTO(ExpertTrace):
    valuation_verdict: str
    confidence_score: float
    estimated_intrinsic_value_range: IntrinsicValueRange
    key_evidence: list[str]
    risk_factors: list[str]
    reasoning_summary: str
    valuation_indicators: dict[str, Any]
    evidence_cards: list[EvidenceCard] = Field(default_factory=list, description=CARDS_DESCRIPTION)


class TechnicalAnalystResultDTO(ExpertTrace):
    signal: str
    confidence: float
    key_technical_levels: KeyTechnicalLevels
    risk_warning: str
    summary_reasoning: str
    evidence: list[str]
    technical_indicators: dict[str, Any]
    evidence_cards: list[EvidenceCard] = Field(default_factory=list, description=CARDS_DESCRIPTION)


class FinancialAuditorResultDTO(ExpertTrace):
    financial_score: int
    signal: str
    confidence: float
    dimension_analyses: list[DimensionAnalysis]
    key_risks: list[str]
    summary_reasoning: str
    financial_indicators: dict[str, Any]
    evidence_cards: list[EvidenceCard] = Field(default_factory=list, description=CARDS_DESCRIPTION)


class MacroIntelligenceResultDTO(ExpertTrace):
    macro_environment: str
    confidence_score: float
    macro_summary: str
    dimension_analyses: list[IntelDimensionAnalysis]
    key_opportunities: list[str]
    key_risks: list[str]
    information_sources: list[str]
    macro_indicators: dict[str, Any] = Field(description="the search context actually sent, by dimension")
    evidence_cards: list[EvidenceCard] = Field(default_factory=list, description=SEARCH_CARDS_DESCRIPTION)


class CatalystDetectiveResultDTO(ExpertTrace):
    catalyst_assessment: str
    confidence_score: float
    catalyst_summary: str
    dimension_analyses: list[IntelDimensionAnalysis]
    positive_catalysts: list[Catalyst]
    negative_catalysts: list[Catalyst]
    information_sources: list[str]
    catalyst_indicators: dict[str, Any] = Field(description="the search context actually sent, by dimension")
    evidence_cards: list[EvidenceCard] = Field(default_factory=list, description=SEARCH_CARDS_DESCRIPTION)


class RulesOnlyResultDTO(BaseModel):
    """A rules-only run of one expert: its snapshot (under the expert's own `<x>_indicators` name,
    as an LLM result carries it) and the code's reading of it; no LLM answer."""

    model_config = ConfigDict(extra="forbid")

    symbol: str
    as_of: date | None = None
    rules_only: Literal[True] = True
    code_signal: CodeSignal
    evidence_cards: list[EvidenceCard] = Field(default_factory=list, description=CARDS_DESCRIPTION)
    valuation_indicators: dict[str, Any] | None = None
    technical_indicators: dict[str, Any] | None = None
    financial_indicators: dict[str, Any] | None = None
    macro_indicators: dict[str, Any] | None = None
    catalyst_indicators: dict[str, Any] | None = None


ExpertResult = (
    ValuationModelerResultDTO
    | TechnicalAnalystResultDTO
    | FinancialAuditorResultDTO
    | MacroIntelligenceResultDTO
    | CatalystDetectiveResultDTO
    | RulesOnlyResultDTO
)
"""What one research expert's run gives the desk: its typed result, or the rules-only result."""
