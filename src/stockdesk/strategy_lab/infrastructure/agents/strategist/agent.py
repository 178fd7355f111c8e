"""IStrategist over the LLM handle: prompt resources in, raw text out.

The answer is deliberately asked for as plain text, a REASONING section then a JSON section (the
spec's "reasoning separated" layout, not a provider's JSON mode): the template code generator splits
and validates it, and its structured feedback drives the retries.
"""

from __future__ import annotations

from stockdesk.llm_platform.application.llm_handle import LLMHandle, Sampling
from stockdesk.shared.prompts import load_prompts
from stockdesk.strategy_lab.application.feedback import after_prompt
from stockdesk.strategy_lab.domain.ports import (
    IStrategist,
    PromptContext,
    StrategistQuestion,
    StrategistReply,
)

CALLER = "strategy_lab.strategist"
# A proposal should explore (a higher temperature than the desk's other agents); 600 tokens hold
# the reasoning and one parameter set.
SAMPLING = Sampling(temperature=0.7, max_tokens=600)


class StrategistAgent(IStrategist):
    def __init__(self, llm: LLMHandle, *, seed: int | None = None):
        """`seed`: every call samples with it (a sweep's proposals differ by seed only)."""
        self._llm = llm
        self._prompts = load_prompts(__package__)
        self._seed = seed

    def render(self, context: PromptContext) -> str:
        return self._prompts.render_user(**context.model_dump())

    def answer(self, question: StrategistQuestion, feedback: str | None = None) -> StrategistReply:
        """The prompt filled from the question; a retry's `feedback` (the validation errors)
        follows it after a blank line, so the model rereads its task first."""
        prompt = after_prompt(self.render(question.context), feedback)
        if question.run_id is None:
            return self._call(prompt)
        with self._llm.run_scope(question.run_id):
            return self._call(prompt)

    def _call(self, prompt: str) -> StrategistReply:
        reply = self._llm.text(prompt, self._prompts.system, caller=CALLER, seed=self._seed)
        return StrategistReply(prompt=prompt, text=reply.text, tokens=reply.tokens)
