"""CatalystDetectiveService: the catalyst expert's application entry point (search -> LLM -> checks)."""

from __future__ import annotations

from stockdesk.research.application.dtos import CatalystDetectiveResultDTO
from stockdesk.research.application.search_expert_service import SearchExpertService
from stockdesk.research.domain.dtos.soft_intel import CatalystDetectiveOutput


class CatalystDetectiveService(SearchExpertService[CatalystDetectiveOutput, CatalystDetectiveResultDTO]):
    """(data, snapshot_builder, agent: ICatalystDetectiveAgentPort)."""

    expert = "catalyst_detective"
    output_model = CatalystDetectiveOutput
    result_model = CatalystDetectiveResultDTO
    indicators_field = "catalyst_indicators"
    verdict_field = "catalyst_assessment"
    summary_field = "catalyst_summary"
    cleared_when_nothing_found = ("positive_catalysts", "negative_catalysts")
    text_fields = (
        "catalyst_summary",
        "dimension_analyses.*.assessment",
        "dimension_analyses.*.key_points",
        "positive_catalysts[].event",
        "negative_catalysts[].event",
    )
