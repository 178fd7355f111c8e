"""IValuationModelerAgentPort: fill the prompt resources from the snapshot, ask, parse."""

from __future__ import annotations

from stockdesk.research.domain.dtos.expert import AgentAnswer
from stockdesk.research.domain.dtos.valuation import ValuationModelOutput, ValuationSnapshotDTO
from stockdesk.research.domain.ports.llm import ILLMPort
from stockdesk.research.domain.ports.valuation import IValuationModelerAgentPort
from stockdesk.research.infrastructure.agents.prompting import render_feedback
from stockdesk.research.infrastructure.agents.valuation_modeler.output_parser import parse_valuation_output
from stockdesk.shared.prompts import load_prompts


class ValuationModelerAgent(IValuationModelerAgentPort):
    def __init__(self, llm: ILLMPort):
        self._llm = llm
        self._prompts = load_prompts(__package__)

    def analyze(
        self, snapshot: ValuationSnapshotDTO, feedback: str | None = None
    ) -> AgentAnswer[ValuationModelOutput]:
        prompt = self._prompts.render_user(**snapshot.model_dump(mode="json")) + render_feedback(feedback)
        reply = self._llm.generate(
            prompt,
            self._prompts.system,
            response_model=ValuationModelOutput,
            caller="research.valuation_modeler",
        )
        parsed = parse_valuation_output(reply.text)
        return AgentAnswer[ValuationModelOutput](
            input=prompt, output=reply.text, parsed=parsed, tokens=reply.tokens
        )
