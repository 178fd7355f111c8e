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
    text_fields = (
        "macro_summary",
        "dimension_analyses.*.assessment",
        "dimension_analyses.*.key_points",
        "key_opportunities",
        "key_risks",
    )
