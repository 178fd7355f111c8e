"""IValuationModelerAgentPort: the valuation prompt resources on the shared expert agent."""

from __future__ import annotations

from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.research.domain.dtos.valuation import ValuationModelOutput, ValuationSnapshotDTO
from stockdesk.research.domain.ports.valuation import IValuationModelerAgentPort
from stockdesk.research.infrastructure.agents.structured_agent import ExpertAgent
from stockdesk.research.infrastructure.agents.valuation_modeler.output_parser import parse_valuation_output


class ValuationModelerAgent(
    ExpertAgent[ValuationSnapshotDTO, ValuationModelOutput], IValuationModelerAgentPort
):
    def __init__(self, llm: LLMHandle):
        super().__init__(
            llm,
            package=__package__,
            output_model=ValuationModelOutput,
            expert="valuation_modeler",
            parse=parse_valuation_output,
        )
