"""CatalystDetectiveService: the catalyst expert's application entry point (search -> LLM -> checks)."""

from __future__ import annotations

from stockdesk.research.application.dtos import CatalystDetectiveResultDTO
from stockdesk.research.application.search_expert_service import (
    NO_INFORMATION_CONFIDENCE,
    SearchExpertService,
    insufficient,
)
from stockdesk.research.domain.dtos.soft_intel import CatalystDetectiveOutput
from stockdesk.research.domain.ports.soft_intel import (
    ICatalystDetectiveAgentPort,
    ISearchDataPort,
    ISearchSnapshotBuilder,
)


class CatalystDetectiveService(SearchExpertService[CatalystDetectiveOutput, CatalystDetectiveResultDTO]):
    expert = "catalyst_detective"
    result_model = CatalystDetectiveResultDTO
    indicators_field = "catalyst_indicators"

    def __init__(
        self,
        data: ISearchDataPort,
        snapshot_builder: ISearchSnapshotBuilder,
        agent: ICatalystDetectiveAgentPort,
    ):
        super().__init__(data, snapshot_builder, agent.analyze)

    def texts(self, output: CatalystDetectiveOutput) -> list[str]:
        points = [p for d in output.dimension_analyses for p in (d.assessment, *d.key_points)]
        events = [c.event for c in (*output.positive_catalysts, *output.negative_catalysts)]
        return [output.catalyst_summary, *points, *events]

    def hold_to_no_information(self, output: CatalystDetectiveOutput) -> CatalystDetectiveOutput:
        return output.model_copy(
            update={
                "catalyst_assessment": "Neutral",
                "confidence_score": min(output.confidence_score, NO_INFORMATION_CONFIDENCE),
                "catalyst_summary": insufficient(output.catalyst_summary),
                "positive_catalysts": [],
                "negative_catalysts": [],
            }
        )
