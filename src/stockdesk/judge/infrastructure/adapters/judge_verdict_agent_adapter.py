"""IJudgeVerdictAgentPort: prompt resources filled from JudgeInput -> one LLM call -> strict parse."""

from __future__ import annotations

from stockdesk.judge.domain.dtos.judge_input import JudgeInput
from stockdesk.judge.domain.dtos.verdict_result import VerdictResult
from stockdesk.judge.domain.ports.judge_verdict_agent import IJudgeVerdictAgentPort, VerdictAnswer
from stockdesk.judge.domain.ports.llm_port import ILLMPort
from stockdesk.judge.infrastructure.agents.verdict import output_parser
from stockdesk.shared.prompts import load_prompts

NONE = "（无）"


def bullets(items: list[str]) -> str:
    return "\n".join(f"  - {item}" for item in items) if items else f"  {NONE}"


class JudgeVerdictAgentAdapter(IJudgeVerdictAgentPort):
    def __init__(self, llm: ILLMPort):
        self._llm = llm
        self._prompts = load_prompts(output_parser.__package__ or "")

    def decide(self, judge_input: JudgeInput) -> VerdictAnswer:
        prompt = self._prompts.render_user(
            symbol=judge_input.symbol,
            direction=judge_input.direction.value,
            confidence=f"{judge_input.confidence:.2f}",
            bull_thesis=judge_input.bull_thesis or NONE,
            bear_thesis=judge_input.bear_thesis or NONE,
            risk_factors=bullets(judge_input.risk_factors),
            key_disagreements=bullets(judge_input.key_disagreements),
            conflict_resolution=judge_input.conflict_resolution or NONE,
        )
        reply = self._llm.generate(
            prompt, self._prompts.system, response_model=VerdictResult, caller="judge.verdict"
        )
        return VerdictAnswer(input=prompt, output=reply.text, result=output_parser.parse_verdict(reply.text))
