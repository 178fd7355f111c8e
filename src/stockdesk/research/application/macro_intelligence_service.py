"""MacroIntelligenceService: the macro expert's application entry point (search -> LLM -> checks)."""

from __future__ import annotations

from stockdesk.research.application.dtos import MacroIntelligenceResultDTO
from stockdesk.research.application.search_expert_service import SearchExpertService
from stockdesk.research.domain.dtos.soft_intel import MacroIntelligenceOutput


class MacroIntelligenceService(SearchExpertService[MacroIntelligenceOutput, MacroIntelligenceResultDTO]):
    """(data, snapshot_builder, agent: IMacroIntelligenceAgentPort)."""

    expert = "macro_intelligence"
    output_model = MacroIntelligenceOutput
    result_model = MacroIntelligenceResultDTO
    indicators_field = "macro_indicators"
    verdict_field = "macro_environment"
    summary_field = "macro_summary"
    cleared_when_nothing_found = ("key_opportunities", "key_risks")

    def texts(self, output: MacroIntelligenceOutput) -> list[str]:
        points = [p for d in output.dimension_analyses for p in (d.assessment, *d.key_points)]
        return [output.macro_summary, *points, *output.key_opportunities, *output.key_risks]
