"""MacroIntelligenceService: the macro expert's application entry point (search -> LLM -> checks)."""

from __future__ import annotations

from stockdesk.research.application.dtos import MacroIntelligenceResultDTO
from stockdesk.research.application.search_expert_service import (
    NO_INFORMATION_CONFIDENCE,
    SearchExpertService,
    insufficient,
)
from stockdesk.research.domain.dtos.soft_intel import MacroIntelligenceOutput
from stockdesk.research.domain.ports.soft_intel import (
    IMacroIntelligenceAgentPort,
    ISearchDataPort,
    ISearchSnapshotBuilder,
)


class MacroIntelligenceService(SearchExpertService[MacroIntelligenceOutput, MacroIntelligenceResultDTO]):
    expert = "macro_intelligence"
    result_model = MacroIntelligenceResultDTO
    indicators_field = "macro_indicators"

    def __init__(
        self,
        data: ISearchDataPort,
        snapshot_builder: ISearchSnapshotBuilder,
        agent: IMacroIntelligenceAgentPort,
    ):
        super().__init__(data, snapshot_builder, agent.analyze)

    def texts(self, output: MacroIntelligenceOutput) -> list[str]:
        points = [p for d in output.dimension_analyses for p in (d.assessment, *d.key_points)]
        return [output.macro_summary, *points, *output.key_opportunities, *output.key_risks]

    def hold_to_no_information(self, output: MacroIntelligenceOutput) -> MacroIntelligenceOutput:
        return output.model_copy(
            update={
                "macro_environment": "Neutral",
                "confidence_score": min(output.confidence_score, NO_INFORMATION_CONFIDENCE),
                "macro_summary": insufficient(output.macro_summary),
                "key_opportunities": [],
                "key_risks": [],
            }
        )
